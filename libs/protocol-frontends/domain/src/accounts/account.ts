import { AcmeProblem } from '../problems/acme-problem';

/** RFC 8555 7.1.6: the states of an account. */
export const ACCOUNT_STATUSES = ['valid', 'deactivated', 'revoked'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export type AccountEvent = { kind: 'deactivate' } | { kind: 'revoke' };

export type AccountTransition = { ok: true; to: AccountStatus } | { ok: false; problem: AcmeProblem };

/** The account state machine: both ends are final (RFC 8555 7.3.6). */
export function nextAccountStatus(from: AccountStatus, event: AccountEvent): AccountTransition {
  if (from !== 'valid')
    return { ok: false, problem: new AcmeProblem('unauthorized', `the account is ${from}`) };
  return { ok: true, to: event.kind === 'deactivate' ? 'deactivated' : 'revoked' };
}

const MAX_CONTACTS = 10;

/** RFC 8555 7.3: contacts are mailto: URLs (the only scheme this server supports). */
export function checkContacts(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string'))
    throw new AcmeProblem('malformed', 'contact must be an array of URLs');
  if (raw.length > MAX_CONTACTS) throw new AcmeProblem('malformed', `at most ${MAX_CONTACTS} contacts`);
  return (raw as string[]).map((contact) => {
    // URI schemes compare without case (RFC 3986 3.1); the contact is kept as "mailto:".
    if (!/^mailto:/i.test(contact))
      throw new AcmeProblem('unsupportedContact', `only mailto: contacts are supported, not ${contact}`);
    const address = contact.slice('mailto:'.length);
    // RFC 8555 7.3: a mailto with hfields (?subject=...) or several addresses is invalid.
    if (!/^[^@\s,?]+@[^@\s,?]+\.[^@\s,?]+$/.test(address))
      throw new AcmeProblem('invalidContact', `${contact} is not a single e-mail address`);
    return `mailto:${address}`;
  });
}

export interface NewAccountRequest {
  contact: string[];
  termsOfServiceAgreed: boolean;
  onlyReturnExisting: boolean;
}

/**
 * The payload of newAccount (RFC 8555 7.3), checked. When the directory lists terms of service
 * (`rules.termsOfService`, their URL), a new account must agree to them: refused with
 * userActionRequired linking them (RFC 8555 7.3.3's answer to terms not agreed to).
 */
export function checkNewAccountPayload(
  json: Record<string, unknown>,
  rules: { termsOfService?: string },
): NewAccountRequest {
  const { termsOfServiceAgreed, onlyReturnExisting } = json;
  if (termsOfServiceAgreed !== undefined && typeof termsOfServiceAgreed !== 'boolean')
    throw new AcmeProblem('malformed', 'termsOfServiceAgreed must be a boolean');
  if (onlyReturnExisting !== undefined && typeof onlyReturnExisting !== 'boolean')
    throw new AcmeProblem('malformed', 'onlyReturnExisting must be a boolean');
  const request = {
    contact: onlyReturnExisting ? [] : checkContacts(json.contact),
    termsOfServiceAgreed: termsOfServiceAgreed === true,
    onlyReturnExisting: onlyReturnExisting === true,
  };
  if (!request.onlyReturnExisting && rules.termsOfService && !request.termsOfServiceAgreed)
    throw new AcmeProblem(
      'userActionRequired',
      `the terms of service (${rules.termsOfService}) must be agreed to: termsOfServiceAgreed true`,
      { termsOfService: rules.termsOfService },
    );
  return request;
}

/** The server's terms of service as the account rules read them. */
export interface TermsRules {
  /** The current terms' URL (the directory's meta.termsOfService); none: no terms. */
  termsOfService?: string;
  /** Accounts must have agreed to these very terms, not to earlier ones (RFC 8555 7.3.3). */
  reagreement?: boolean;
}

/** What an account row records of its agreement: that it agreed, and to which terms' URL. */
export interface TermsAgreement {
  terms_of_service_agreed: boolean;
  /** The terms' URL agreed to; null for an agreement recorded before URLs were kept. */
  terms_of_service_url: string | null;
}

/**
 * Whether the account has agreed to the terms in force: any agreement counts unless
 * re-agreement is asked, and then only one to the current URL. With no terms, it is what the
 * account once said.
 */
export function agreedToCurrentTerms(account: TermsAgreement, rules: TermsRules): boolean {
  if (!rules.termsOfService || !rules.reagreement) return account.terms_of_service_agreed;
  return account.terms_of_service_agreed && account.terms_of_service_url === rules.termsOfService;
}

/**
 * RFC 8555 7.3.3: when the terms changed since the account agreed and the server asks for
 * agreement again, a request that would order or issue is refused with userActionRequired,
 * linking the new terms (`Link: rel="terms-of-service"`) and naming in `instance` where a person
 * reads them. Null when the request may go on.
 */
export function termsAgreementProblem(account: TermsAgreement, rules: TermsRules): AcmeProblem | null {
  if (!rules.termsOfService || !rules.reagreement || agreedToCurrentTerms(account, rules)) return null;
  return new AcmeProblem(
    'userActionRequired',
    `the terms of service changed: read ${rules.termsOfService} and agree by updating the account with termsOfServiceAgreed true`,
    { termsOfService: rules.termsOfService, instance: rules.termsOfService },
  );
}

/**
 * The agreement of an account update (RFC 8555 7.3.2): the URL of the terms agreed to when the
 * payload says `termsOfServiceAgreed: true` and the server has terms; null otherwise. `false`
 * is ignored, as the account object a client posts back may carry it; agreement is not withdrawn.
 */
export function termsAgreedInUpdate(json: Record<string, unknown>, rules: TermsRules): string | null {
  const { termsOfServiceAgreed } = json;
  if (termsOfServiceAgreed !== undefined && typeof termsOfServiceAgreed !== 'boolean')
    throw new AcmeProblem('malformed', 'termsOfServiceAgreed must be a boolean');
  return termsOfServiceAgreed === true && rules.termsOfService ? rules.termsOfService : null;
}
