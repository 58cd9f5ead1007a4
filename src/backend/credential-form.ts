// The form of the two credentials, organization keys (ndp_) and agent grant tokens (ndca-): pure,
// so an adapter can name a credential of the wrong form without loading the service.

export const API_KEY_PREFIX = 'ndp_';
export const AGENT_TOKEN_PREFIX = 'ndca-';

/** What follows the prefix: 32 random bytes in base64url. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

/** The form of both credentials, for the messages that refuse one of another form. */
export const CREDENTIAL_FORM =
  'ndp_ (organization key) or ndca- (agent grant token), then 43 letters, digits, - or _';

/** Which credential a secret is by its form alone (whether it is known is the store's to say). */
export function credentialKind(secret: string): 'org_key' | 'agent_token' | undefined {
  if (secret.startsWith(API_KEY_PREFIX) && SECRET_BODY.test(secret.slice(API_KEY_PREFIX.length))) {
    return 'org_key';
  }
  if (secret.startsWith(AGENT_TOKEN_PREFIX) && SECRET_BODY.test(secret.slice(AGENT_TOKEN_PREFIX.length))) {
    return 'agent_token';
  }
  return undefined;
}
