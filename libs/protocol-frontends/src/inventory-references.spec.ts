import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { MessageBus } from '@certlane/platform';
import { inventoryReferenceCheck, refuseUnknownReferences } from './inventory-references';

/** A bus whose issuance knows owner `known`, team `known` and certificate profile `known`. */
function busKnowing(calls: string[], failWith?: Error): MessageBus {
  const notFound: Record<string, ErrorCode> = {
    'issuance.v1.get-owner': ErrorCode.OwnerNotFound,
    'issuance.v1.get-team': ErrorCode.TeamNotFound,
    'issuance.v1.get-profile': ErrorCode.ProfileNotFound,
  };
  return {
    request: async (subject: string, payload: { id: string }) => {
      calls.push(`${subject} ${payload.id}`);
      if (failWith) throw failWith;
      if (payload.id !== 'known') throw new CertlaneError(notFound[subject], `no ${payload.id}`);
      return { id: payload.id };
    },
  } as unknown as MessageBus;
}

describe('inventoryReferenceCheck', () => {
  it('asks nothing when no name is given', async () => {
    const calls: string[] = [];
    expect(await inventoryReferenceCheck(busKnowing(calls))({ owner: null, team: undefined })).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('answers each unknown name beside its field, and nothing for the known ones', async () => {
    const calls: string[] = [];
    const problems = await inventoryReferenceCheck(busKnowing(calls))({
      owner: 'known',
      team: 'ghost-team',
      certificateProfileId: 'ghost-profile',
    });
    expect(problems).toEqual([
      { field: 'team', message: expect.stringContaining('no team ghost-team') },
      { field: 'certificate_profile_id', message: 'no certificate profile ghost-profile' },
    ]);
    expect(calls.sort()).toEqual([
      'issuance.v1.get-owner known',
      'issuance.v1.get-profile ghost-profile',
      'issuance.v1.get-team ghost-team',
    ]);
  });

  it('passes on any other failure (issuance unreachable is not "unknown")', async () => {
    const unreachable = new CertlaneError(ErrorCode.ServiceUnavailable, 'no responder');
    await expect(inventoryReferenceCheck(busKnowing([], unreachable))({ owner: 'known' })).rejects.toBe(
      unreachable,
    );
  });
});

describe('refuseUnknownReferences', () => {
  const check = inventoryReferenceCheck(busKnowing([]));

  it('refuses with the given code, each name in details.fields and details.problems', async () => {
    const refusal = await refuseUnknownReferences(
      check,
      { owner: 'ghost', team: 'known' },
      ErrorCode.EstProfileInvalid,
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CertlaneError);
    expect(refusal).toMatchObject({
      code: ErrorCode.EstProfileInvalid,
      details: {
        fields: [{ field: 'owner', message: expect.stringContaining('no owner ghost') }],
        problems: [expect.stringMatching(/^owner: no owner ghost/)],
      },
    });
  });

  it('lets a request naming only known records, or none, through', async () => {
    await expect(
      refuseUnknownReferences(
        check,
        { owner: 'known', certificate_profile_id: 'known' },
        ErrorCode.ReferenceInvalid,
      ),
    ).resolves.toBeUndefined();
    await expect(refuseUnknownReferences(check, {}, ErrorCode.ReferenceInvalid)).resolves.toBeUndefined();
  });
});
