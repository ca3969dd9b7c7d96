/**
 * Stripe's error answers: `{ error: { type, code?, message, param?, decline_code?, doc_url? } }` with the
 * HTTP status Stripe uses for each kind (400 invalid request, 401 bad key, 402 card error, 404 missing
 * resource, 409 idempotency conflict, 429 rate limit, 500 api error). The SDK turns the type into its
 * error classes (StripeInvalidRequestError, StripeCardError, …).
 */
export interface StripeErrorBody {
  type: 'invalid_request_error' | 'card_error' | 'api_error' | 'idempotency_error' | 'rate_limit_error';
  code?: string;
  message: string;
  param?: string;
  decline_code?: string;
  doc_url?: string;
  payment_method?: unknown;
  request_log_url?: string;
}

export class StripeApiError extends Error {
  readonly status: number;
  readonly body: StripeErrorBody;

  constructor(status: number, body: StripeErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;

export function invalidRequest(message: string, param?: string, code?: string): StripeApiError {
  return new StripeApiError(400, {
    type: 'invalid_request_error',
    message,
    ...(code ? { code, doc_url: docUrl(code) } : {}),
    ...(param ? { param } : {}),
  });
}

export function missingParam(param: string): StripeApiError {
  return invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing');
}

export function invalidParam(param: string, message: string): StripeApiError {
  return invalidRequest(message, param, 'parameter_invalid_empty');
}

/** "No such customer: 'cus_123'", 404 resource_missing, like Stripe. */
export function noSuch(kind: string, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    doc_url: docUrl('resource_missing'),
    message: `No such ${kind}: '${id}'`,
    param,
  });
}
