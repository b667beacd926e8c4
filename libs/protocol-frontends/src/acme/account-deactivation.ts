import { CertlaneError, ErrorCode } from '@certlane/contracts';
import { CertlaneLogger, MessageBus, SqlExecutor } from '@certlane/platform';
import { OrderStore } from '@certlane/protocol-frontends-data-access';
import { accountDeactivatedProblem } from '@certlane/protocol-frontends-domain';

/**
 * RFC 8555 7.3.6 ("the server SHOULD cancel any pending operations authorized by the account's
 * key"), in the deactivation's transaction, whoever deactivates (the account itself, an
 * operator): its pending, ready and processing orders end, invalid with `unauthorized`, and its
 * pending and valid authorizations are deactivated. Answers the orders ended with the approvals
 * they waited for.
 */
export function endOrdersOfDeactivatedAccount(
  executor: SqlExecutor,
  accountId: string,
): Promise<{ id: string; approval_id: string | null }[]> {
  return new OrderStore(executor).endOrdersOfAccount(accountId, accountDeactivatedProblem().toDocument());
}

/** The enrollment approvals the ended orders waited for. */
export function approvalsOf(ended: readonly { approval_id: string | null }[]): string[] {
  return ended.flatMap((order) => (order.approval_id ? [order.approval_id] : []));
}

/** Withdraws the enrollment approvals an ACME account's orders opened (the orders have ended). */
export type ApprovalWithdrawal = (approvalIds: readonly string[], accountId: string) => Promise<void>;

const WITHDRAWN = 'withdrawn: the ACME account that asked was deactivated (RFC 8555 7.3.6)';

/**
 * Rejects each approval as its requester (`acme-account:<id>`, which issuance lets withdraw its own
 * request), so no approver issues for an account that was deactivated. Best effort, after the
 * deactivation committed: one already decided is left as it is; any other failure is logged.
 */
export function approvalWithdrawal(bus: MessageBus, logger: CertlaneLogger): ApprovalWithdrawal {
  return async (approvalIds, accountId) => {
    await Promise.all(
      approvalIds.map((id) =>
        bus
          .request(
            'issuance.v1.reject-approval',
            { id, reason: WITHDRAWN },
            { context: { actor_id: `acme-account:${accountId}` } },
          )
          .then(
            () => undefined,
            (error: unknown) => {
              if (error instanceof CertlaneError && error.code === ErrorCode.ApprovalNotPending) return;
              logger.warn(
                { approval_id: id, account_id: accountId, err: error },
                'the approval of a deactivated ACME account could not be withdrawn',
              );
            },
          ),
      ),
    );
  };
}
