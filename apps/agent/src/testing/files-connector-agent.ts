import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeTargetsFile } from './agent-files';

const DIST_RUN = resolve(__dirname, '../../../../dist/apps/agent/src/run.js');

/**
 * The real agent (dist/) started with one extra connector, the test double of a target kind that
 * writes cert.pem and key.pem to a directory (the real kinds come with libs/connectors), and a
 * targets file with one such target, `tgt-files`, deploying to `dir`/deployed. Returns the script
 * to start (startAgentProcess's `script`).
 */
export function writeFilesConnectorAgent(dir: string): string {
  writeTargetsFile(dir, [{ id: 'tgt-files', type: 'nginx', config: { dir: join(dir, 'deployed') } }]);
  const script = join(dir, 'agent-with-test-connector.js');
  writeFileSync(
    script,
    `const fs = require('node:fs');
const path = require('node:path');
const { runAgent } = require(${JSON.stringify(DIST_RUN)});
const files = {
  type: 'nginx',
  async deploy(config, material) {
    fs.mkdirSync(config.dir, { recursive: true });
    fs.writeFileSync(path.join(config.dir, 'cert.pem'), material.certificatePem + material.chainPem);
    fs.writeFileSync(path.join(config.dir, 'key.pem'), material.privateKeyPem, { mode: 0o600 });
    return { ok: true, rolledBack: false, steps: [{ step: 'write', ok: true }] };
  },
};
runAgent({ connectors: [files] }).then((code) => process.exit(code));
`,
  );
  return script;
}
