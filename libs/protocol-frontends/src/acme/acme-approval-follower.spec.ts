import { ApprovalEvent } from '@certlane/contracts';
import { acmeOrderOf } from './acme-approval-follower';

const event = (enrollment: unknown) => ({ id: 'ap-1', enrollment }) as unknown as ApprovalEvent;

describe(acmeOrderOf.name, () => {
  it('names the ACME order an approval of a finalize was opened for', () => {
    expect(
      acmeOrderOf(event({ source: 'ACME', reference: { order_id: 'ord-1', acme_profile: 'held' } })),
    ).toBe('ord-1');
  });

  it('ignores approvals of other protocols, of managed certificates and without an order', () => {
    expect(acmeOrderOf(event({ source: 'SCEP', reference: { order_id: 'ord-1' } }))).toBeNull();
    expect(acmeOrderOf(event(null))).toBeNull();
    expect(acmeOrderOf(event({ source: 'ACME', reference: {} }))).toBeNull();
    expect(acmeOrderOf(event({ source: 'ACME' }))).toBeNull();
  });
});
