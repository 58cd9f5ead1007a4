// The form of an age recipient, apart from the age library: a tool's schema checks it without
// loading the library.
/** Recipients in their Bech32 text form: `age1` then the Bech32 alphabet (BIP 173). */
export const AGE_RECIPIENT = /^age1[02-9ac-hj-np-z]{20,}$/;
