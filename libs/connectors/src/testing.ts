// Test-only entry point (@certlane/connectors/testing): the real-server helpers of the connector
// integration tests, reused by the agent's end-to-end test against a real nginx.
export {
  freePort,
  hasBinary,
  opensslServedFingerprint,
  startServer,
  waitUntil,
} from './targets/testing/servers';
export type { ServerProcess } from './targets/testing/servers';
export { createThrowawayUser, startTestSshd } from './targets/testing/sshd';
export type { TestSshd } from './targets/testing/sshd';
