/** The media type of every ACME error answer (RFC 8555 6.7, RFC 7807). */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ACME_ERROR_NAMESPACE = 'urn:ietf:params:acme:error:';

/**
 * The error types of RFC 8555 6.7 (table of "urn:ietf:params:acme:error:" suffixes), RFC 9773's
 * alreadyReplaced and draft-ietf-acme-profiles' invalidProfile.
 */
export const ACME_PROBLEM_TYPES = [
  'accountDoesNotExist',
  'alreadyReplaced',
  'alreadyRevoked',
  'badCSR',
  'badNonce',
  'badPublicKey',
  'badRevocationReason',
  'badSignatureAlgorithm',
  'caa',
  'compound',
  'connection',
  'dns',
  'externalAccountRequired',
  'incorrectResponse',
  'invalidContact',
  'invalidProfile',
  'malformed',
  'orderNotReady',
  'rateLimited',
  'rejectedIdentifier',
  'serverInternal',
  'tls',
  'unauthorized',
  'unsupportedContact',
  'unsupportedIdentifier',
  'userActionRequired',
] as const;
export type AcmeProblemType = (typeof ACME_PROBLEM_TYPES)[number];

/**
 * The HTTP status each type is answered with. RFC 8555 leaves most to the server; these follow
 * what the reference implementations (Boulder, Pebble) send, which the clients are tested against.
 */
const STATUS: Record<AcmeProblemType, number> = {
  accountDoesNotExist: 400,
  alreadyReplaced: 409,
  alreadyRevoked: 400,
  badCSR: 400,
  badNonce: 400,
  badPublicKey: 400,
  badRevocationReason: 400,
  badSignatureAlgorithm: 400,
  caa: 403,
  compound: 403,
  connection: 400,
  dns: 400,
  externalAccountRequired: 401,
  incorrectResponse: 403,
  invalidContact: 400,
  invalidProfile: 400,
  malformed: 400,
  orderNotReady: 403,
  rateLimited: 429,
  rejectedIdentifier: 400,
  serverInternal: 500,
  tls: 400,
  unauthorized: 403,
  unsupportedContact: 400,
  unsupportedIdentifier: 400,
  userActionRequired: 403,
};

export interface AcmeIdentifier {
  type: 'dns' | 'ip';
  value: string;
}

/** The identifier a subproblem is about, as the client sent it (an unsupported type included). */
export interface SubproblemIdentifier {
  type: string;
  value: string;
}

/** The JSON body of an ACME problem document. */
export interface AcmeProblemDocument {
  type: string;
  detail: string;
  status: number;
  /** RFC 8555 6.7.1: per-identifier problems of a compound error. */
  subproblems?: { type: string; detail: string; identifier?: SubproblemIdentifier }[];
  /** RFC 8555 6.2: a badSignatureAlgorithm answer lists the accepted algorithms. */
  algorithms?: string[];
  /** RFC 8555 7.3.3: where a person reads how to agree to changed terms (RFC 7807 `instance`). */
  instance?: string;
}

/** An ACME error: thrown by the domain rules, answered by the HTTP layer as a problem document. */
export class AcmeProblem extends Error {
  readonly status: number;

  constructor(
    readonly type: AcmeProblemType,
    readonly detail: string,
    readonly extra: {
      status?: number;
      subproblems?: { type: AcmeProblemType; detail: string; identifier?: SubproblemIdentifier }[];
      algorithms?: string[];
      /** RFC 8555 6.6: rateLimited answers say when to retry (the Retry-After header). */
      retryAfterSeconds?: number;
      /** RFC 8555 7.3.3: userActionRequired links the terms of service (`Link` header). */
      termsOfService?: string;
      /** RFC 8555 7.3.3: the document's `instance`, for a person to visit. */
      instance?: string;
    } = {},
  ) {
    super(`${type}: ${detail}`);
    this.name = 'AcmeProblem';
    this.status = extra.status ?? STATUS[type];
  }

  toDocument(): AcmeProblemDocument {
    const document: AcmeProblemDocument = {
      type: ACME_ERROR_NAMESPACE + this.type,
      detail: this.detail,
      status: this.status,
    };
    if (this.extra.subproblems)
      document.subproblems = this.extra.subproblems.map((p) => ({
        type: ACME_ERROR_NAMESPACE + p.type,
        detail: p.detail,
        ...(p.identifier ? { identifier: p.identifier } : {}),
      }));
    if (this.extra.algorithms) document.algorithms = [...this.extra.algorithms];
    if (this.extra.instance) document.instance = this.extra.instance;
    return document;
  }
}

/** A problem for "no such resource": RFC 8555 has no type for it; Boulder answers malformed/404. */
export function acmeNotFound(what: string): AcmeProblem {
  return new AcmeProblem('malformed', `${what} not found`, { status: 404 });
}
