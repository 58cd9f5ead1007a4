// The values the operations' schemas name (limits, enumerations), apart from the modules that act
// on them: declaring an operation loads none of its domain's code, which loads on its first call.
// Each domain module re-exports its own.

// capsules.ts
export const MEMBER_ROLES = ['owner', 'editor', 'viewer'] as const;

// documents.ts
export const CLEARANCE_LEVELS = ['public', 'internal', 'confidential', 'secret'] as const;

// governance.ts
export const MAX_GRANT_TTL_SECONDS = 365 * 24 * 60 * 60;
export const READ_LIMIT_MAX = 200;

// patches.ts
/** The largest diff a patch may carry, in characters. */
export const MAX_PATCH_CHARS = 1024 * 1024;

// recovery.ts
export const RECOVERY_EVENT_KINDS = [
  'phrase_created',
  'phrase_verified',
  'copy_downloaded',
  'restore_started',
  'restore_completed',
  'restore_failed',
] as const;

// rules.ts
/** The most rules one organization keeps: a decision tries every rule (see `npm run bench -- gate-rules`). */
export const MAX_ORGANIZATION_RULES = 1_000;

// scan-store.ts
export const VERDICTS = ['false_positive', 'accepted_risk', 'confirmed'] as const;

// sources.ts
export const SOURCE_SCHEMES = ['bearer', 'header', 'basic'] as const;
export const READ_METHODS = ['GET', 'HEAD'] as const;
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

// connect.ts
/** Starts of connect requests one client address may make over HTTP: 30 at once, then one every 20 s. */
export const CONNECT_STARTS_PER_CLIENT = { burst: 30, refillSeconds: 20 };

// governance.ts
export const PROOFS_PAGE_MAX = 200;

// seal-files.ts
/** A seal's id as text: `seal_` and the 16 header bytes in hex. */
export const SEAL_ID = /^seal_[0-9a-f]{32}$/;

// archive.ts
/** An archive object's id as text: `arc_` and the first 16 bytes of its keyed hash, in hex. */
export const ARCHIVE_ID = /^arc_[0-9a-f]{32}$/;

// secrets.ts
/**
 * A secret's name is the name of the environment variable it becomes, in the portable form POSIX
 * gives (upper case, digits, underscore, not starting with a digit), at most 128 characters.
 */
export const SECRET_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;

// links.ts
/** The most a link carries, in bytes of content (its ciphertext adds the IV and the tag). */
export const LINK_MAX_BYTES = 10 * 1024 * 1024;
/** A link's ciphertext is the 12-byte IV, the AES-256-GCM ciphertext, then the 16-byte tag. */
export const LINK_CIPHER_OVERHEAD_BYTES = 12 + 16;
export const LINK_DEFAULT_TTL_HOURS = 24;
export const LINK_MAX_TTL_HOURS = 720;
export const LINK_DEFAULT_MAX_OPENS = 5;
export const LINK_MAX_OPENS = 100;
/** How many times a Fabric envelope may be fetched, at most (the send's `max_fetches`). */
export const ENVELOPE_MAX_FETCHES = 20;
/** Wrong access codes a link takes; the one that reaches this destroys it. */
export const LINK_WRONG_CODES_MAX = 5;
export const LINK_CODE_MIN_CHARS = 4;
export const LINK_CODE_MAX_CHARS = 64;
/** How long a page's open button stays good after the page was loaded. */
export const LINK_PAGE_NONCE_SECONDS = 60 * 60;
/** Live links (with content) one organization may keep, in count and in ciphertext bytes. */
export const LINK_LIVE_PER_ORG = 1_000;
export const LINK_LIVE_BYTES_PER_ORG = 1024 * 1024 * 1024;
/**
 * Open attempts one client address may make: 200 at once, then 20 a second. Attempts are receipted,
 * so this bounds how fast anyone holding a link id can grow the chain; a link's own counts (opens,
 * wrong codes) bound what can be released or guessed.
 */
export const LINK_OPENS_PER_CLIENT = { burst: 200, refillSeconds: 0.05 };

// exposures.ts
export const EXPOSURE_DEFAULT_TTL_HOURS = 24;
export const EXPOSURE_MAX_TTL_HOURS = 720;
export const EXPOSURE_DEFAULT_MAX_COPIES = 10;
export const EXPOSURE_MAX_COPIES = 100;
/** Wrong access codes an exposure takes; the one that reaches this ends it (`locked`). */
export const EXPOSURE_WRONG_CODES_MAX = 5;
/**
 * Files of a folder one listing looks at, in the walk's order: the gate decides each, so a folder
 * of a hundred thousand files must not make every page view decide them all.
 */
export const EXPOSURE_MAX_FILES = 1_000;
/** The largest file a partner may have a clean copy of: it is made in memory and sent as JSON. */
export const EXPOSURE_COPY_MAX_BYTES = 2 * 1024 * 1024;
/**
 * Requests one client address may send to an exposure: 100 at once, then 10 a second. A listing
 * walks the folder and asks the gate about each file, and every copy attempt is receipted.
 */
export const EXPOSURE_REQUESTS_PER_CLIENT = { burst: 100, refillSeconds: 0.1 };
