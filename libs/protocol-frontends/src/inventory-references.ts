import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { MessageBus } from '@certlane/platform';

/** The names of issuance's records a profile or EAB key carries into what it issues. */
export interface InventoryReferenceNames {
  owner?: string | null;
  team?: string | null;
  certificateProfileId?: string | null;
}

export interface ReferenceProblem {
  field: 'owner' | 'team' | 'certificate_profile_id';
  message: string;
}

/**
 * Which of the names given issuance does not know, each with its field, so that an operator hears
 * of a mistyped owner, team or certificate profile when setting it, not when an enrollment fails
 * or its certificate is recorded without it.
 */
export type InventoryReferenceCheck = (names: InventoryReferenceNames) => Promise<ReferenceProblem[]>;

/** The check over the bus: issuance's get-owner, get-team and get-profile, side by side. */
export function inventoryReferenceCheck(bus: MessageBus): InventoryReferenceCheck {
  const missing = (request: Promise<unknown>, notFound: string): Promise<boolean> =>
    request.then(
      () => false,
      (error: unknown) => {
        if (error instanceof CertlaneError && error.code === notFound) return true;
        throw error;
      },
    );
  return async ({ owner, team, certificateProfileId }) => {
    const [ownerMissing, teamMissing, profileMissing] = await Promise.all([
      owner ? missing(bus.request('issuance.v1.get-owner', { id: owner }), ErrorCode.OwnerNotFound) : false,
      team ? missing(bus.request('issuance.v1.get-team', { id: team }), ErrorCode.TeamNotFound) : false,
      certificateProfileId
        ? missing(
            bus.request('issuance.v1.get-profile', { id: certificateProfileId }),
            ErrorCode.ProfileNotFound,
          )
        : false,
    ]);
    const problems: ReferenceProblem[] = [];
    if (ownerMissing)
      problems.push({ field: 'owner', message: `no owner ${owner} (create it under /api/v1/owners first)` });
    if (teamMissing)
      problems.push({ field: 'team', message: `no team ${team} (create it under /api/v1/teams first)` });
    if (profileMissing)
      problems.push({
        field: 'certificate_profile_id',
        message: `no certificate profile ${certificateProfileId}`,
      });
    return problems;
  };
}

/**
 * The refusal of unknown references, as `code` (400): each beside its field (`details.fields`,
 * as the GUI's forms read them), listed as `field: message` (`details.problems`).
 */
function referenceRefusal(code: ErrorCode, problems: ReferenceProblem[]): CertlaneError {
  const listed = problems.map((p) => `${p.field}: ${p.message}`);
  return new CertlaneError(code, listed.join('; '), { problems: listed, fields: problems });
}

/**
 * Refuses, as `code`, the owner, team and certificate profile a create or update request names
 * that issuance does not know (the fields it leaves out are not checked).
 */
export async function refuseUnknownReferences(
  check: InventoryReferenceCheck,
  request: { owner?: string | null; team?: string | null; certificate_profile_id?: string | null },
  code: ErrorCode,
): Promise<void> {
  const unknown = await check({
    owner: request.owner,
    team: request.team,
    certificateProfileId: request.certificate_profile_id,
  });
  if (unknown.length > 0) throw referenceRefusal(code, unknown);
}
