// The service's typed error: a closed set of codes, each with its HTTP status.

export const SERVICE_ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  key_not_proven: 400,
  unauthorized: 401,
  forbidden: 403,
  missing_scope: 403,
  no_organization: 403,
  wrong_credential: 403,
  scope_violation: 403,
  fabric_denied: 403,
  code_required: 403,
  wrong_code: 403,
  stale_page: 403,
  not_found: 404,
  unknown_table: 404,
  unknown_agent: 404,
  conflict: 409,
  kid_collision: 409,
  grant_exists: 409,
  already_enrolled: 409,
  table_exists: 409,
  capsule_revoked: 409,
  gone: 410,
  not_enrolled: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  sealed_corrupt: 422,
  quota_exceeded: 429,
  rate_limited: 429,
  forbidden_host: 403,
  internal: 500,
  busy: 503,
} as const;

export type ServiceErrorCode = keyof typeof SERVICE_ERROR_STATUS;

export class ServiceError extends Error {
  readonly code: ServiceErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ServiceErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return SERVICE_ERROR_STATUS[this.code];
  }

  /** The one error body of the API: `{error, message, ...details}`. */
  toBody(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.details };
  }
}

/** Whether a code belongs to the closed set. */
export function isServiceErrorCode(code: unknown): code is ServiceErrorCode {
  return typeof code === 'string' && Object.hasOwn(SERVICE_ERROR_STATUS, code);
}

/** An error body a remote svc answered, as the same typed error a local call throws. */
export function errorFromBody(status: number, body: Record<string, unknown>): ServiceError {
  const { error: code, message, ...details } = body;
  const known = isServiceErrorCode(code) ? code : status >= 500 ? 'internal' : 'invalid_request';
  return new ServiceError(known, typeof message === 'string' ? message : `HTTP ${status}`, details);
}

/**
 * A zod failure as the one invalid_request error: the first issues in the message, all in details.
 * A message that names its field already (those of input-messages.ts start with it in backticks),
 * or is about the whole body, is given as it is; any other is prefixed with the field's path.
 */
export function invalidInput(error: { issues: { path: PropertyKey[]; message: string }[] }): ServiceError {
  const issues = error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
  const message = issues
    .slice(0, 5)
    .map((i) =>
      i.path === '(body)' || i.message.startsWith(`\`${i.path}\``) ? i.message : `${i.path}: ${i.message}`,
    )
    .join('; ');
  return new ServiceError('invalid_request', `invalid request: ${message}`, { issues });
}
