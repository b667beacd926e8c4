// Jest global setup: real Postgres and NATS for integration tests. With a Docker engine and no
// TEST_DATABASE_URL / TEST_NATS_URL given, testcontainers starts both; otherwise the servers named
// by those variables (default: the local ones on 5432 and 4222) are used. Fails fast and clearly
// when neither is available.
const { existsSync, mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const net = require('node:net');

function dockerAvailable() {
  return !!process.env.DOCKER_HOST || existsSync('/var/run/docker.sock');
}

function reachable(url, fallbackPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || fallbackPort) });
    socket.setTimeout(2000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

module.exports = async function globalSetup() {
  // The suite-wide secret scan (response-audit.ts) collects into this directory.
  process.env.CERTLANE_RESPONSE_AUDIT_DIR = mkdtempSync(join(tmpdir(), 'certlane-response-audit-'));
  if (!process.env.TEST_DATABASE_URL && !process.env.TEST_NATS_URL && dockerAvailable()) {
    try {
      const { GenericContainer, Wait } = require('testcontainers');
      const postgres = await new GenericContainer('postgres:16')
        .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
        .start();
      const nats = await new GenericContainer('nats:2').withCommand(['-js']).withExposedPorts(4222).start();
      process.env.TEST_DATABASE_URL = `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
      process.env.TEST_NATS_URL = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
      globalThis.__CERTLANE_CONTAINERS__ = [postgres, nats];
      return;
    } catch (error) {
      process.stderr.write(`testcontainers unavailable (${error.message}); using local servers\n`);
    }
  }
  process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.TEST_NATS_URL ||= 'nats://127.0.0.1:4222';
  const missing = [];
  if (!(await reachable(process.env.TEST_DATABASE_URL, 5432)))
    missing.push(`Postgres at ${process.env.TEST_DATABASE_URL}`);
  if (!(await reachable(process.env.TEST_NATS_URL, 4222)))
    missing.push(`NATS at ${process.env.TEST_NATS_URL}`);
  if (missing.length) {
    throw new Error(
      `integration tests need ${missing.join(' and ')}: start them (see .ci/run) or set TEST_DATABASE_URL / TEST_NATS_URL`,
    );
  }
};
