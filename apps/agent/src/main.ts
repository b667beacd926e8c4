#!/usr/bin/env node
// certlane-agent: polls the Certlane API gateway for work, keeps its private keys on this host,
// deploys certificates to local targets and reports job status (docs/decisions/0030-the-agent.md).
import { BUILT_IN_CONNECTORS } from './connectors';
import { runAgent } from './run';

runAgent({ connectors: BUILT_IN_CONNECTORS }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`certlane-agent: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(1);
  },
);
