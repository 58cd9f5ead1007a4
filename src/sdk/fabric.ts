// Fabric envelope crypto for SDK users: sealing, opening and key pairs. The code lives in
// src/proofs/envelope.ts, pure, so the service's own tools open envelopes with the same bytes.
export * from '../proofs/envelope.ts';
