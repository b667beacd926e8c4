import { IMPLEMENTED_TARGET_TYPES, targetConnector, type TargetConnector } from '@certlane/connectors';

/**
 * The target kinds built into this agent: every agent-run kind of libs/connectors (ADR 0029).
 * A deployment to a kind without a connector (iis, the API kinds) fails with a message naming it.
 */
export const BUILT_IN_CONNECTORS: readonly TargetConnector[] = IMPLEMENTED_TARGET_TYPES.map((type) =>
  targetConnector(type),
);
