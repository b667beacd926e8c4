import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { recordedWithoutUnknownOwner } from './enrollment-issuance';

const refusedField = (field: string) =>
  new CertlaneError(ErrorCode.ReferenceInvalid, `unknown ${field}`, { field });

describe('recordedWithoutUnknownOwner', () => {
  it('sends once with the owner and team when issuance takes them', async () => {
    const sent: boolean[] = [];
    const dropped = jest.fn();
    const answer = await recordedWithoutUnknownOwner(async (withOwnerAndTeam) => {
      sent.push(withOwnerAndTeam);
      return 'issued';
    }, dropped);
    expect([answer, sent, dropped.mock.calls.length]).toEqual(['issued', [true], 0]);
  });

  it.each(['owner_id', 'team_id'])(
    'sends again without them when issuance refuses the %s, and says so',
    async (field) => {
      const sent: boolean[] = [];
      const dropped = jest.fn();
      const answer = await recordedWithoutUnknownOwner(async (withOwnerAndTeam) => {
        sent.push(withOwnerAndTeam);
        if (withOwnerAndTeam) throw refusedField(field);
        return 'issued';
      }, dropped);
      expect([answer, sent, dropped.mock.calls.length]).toEqual(['issued', [true, false], 1]);
    },
  );

  it.each([
    ['another reference', refusedField('issuer_id')],
    ['another refusal', new CertlaneError(ErrorCode.CsrInvalid, 'bad CSR')],
    ['a failure that is no refusal', new Error('bus down')],
  ])('passes on %s without sending again', async (_what, error) => {
    const send = jest.fn(async () => {
      throw error;
    });
    const dropped = jest.fn();
    await expect(recordedWithoutUnknownOwner(send, dropped)).rejects.toBe(error);
    expect([send.mock.calls.length, dropped.mock.calls.length]).toEqual([1, 0]);
  });
});
