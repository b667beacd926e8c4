import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '../config/config-error';
import { LogLevel } from '../config/certlane-config';
import { createLogger, NestPinoLogger } from './logger';

const PRIVATE_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const KEY_BODY = PRIVATE_KEY.split('\n')[1];
const CERTIFICATE = '-----BEGIN CERTIFICATE-----\nMIIBfTCCASOgAwIBAgIUQm9ndXM=\n-----END CERTIFICATE-----';
const SECRETS = ['hunter2', 's3cr3t-client', 'raw-api-key', 'eyJhbGciOi.payload.signature', KEY_BODY];

/** createLogger writing into memory (pino writes each line synchronously to a plain `write` object). */
function memoryLogger(level: LogLevel = 'info') {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'issuance',
    version: '1.2.3',
    level,
    destination: { write: (line: string) => lines.push(line) },
  });
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, records };
}

function expectNoSecret(output: string): void {
  for (const secret of SECRETS) expect([secret, output.includes(secret)]).toEqual([secret, false]);
}

describe(createLogger.name, () => {
  it('writes one JSON object per line with service, version, level, message, time and pid', () => {
    const { logger, lines } = memoryLogger();
    logger.info({ policy_id: 'rp-web' }, 'renewal policy created');
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    expect(lines[0].trimEnd()).not.toContain('\n');
    expect(JSON.parse(lines[0])).toEqual({
      service: 'issuance',
      version: '1.2.3',
      level: 'info',
      message: 'renewal policy created',
      policy_id: 'rp-web',
      pid: process.pid,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('writes the level as its name and drops lines below the configured level', () => {
    const { logger, records } = memoryLogger('warn');
    logger.info('not written');
    logger.debug('not written either');
    logger.warn('written');
    logger.error('written too');
    expect(records().map((r) => [r.level, r.message])).toEqual([
      ['warn', 'written'],
      ['error', 'written too'],
    ]);
  });

  it('never writes secret-named fields, private keys or bearer values, and keeps certificates', () => {
    const { logger, lines, records } = memoryLogger();
    logger.info(
      {
        password: 'hunter2',
        connector: { client_secret: 's3cr3t-client', api_key: 'raw-api-key', name: 'vault' },
        headers: { authorization: 'Bearer eyJhbGciOi.payload.signature', 'user-agent': 'curl' },
        upstream_reply: `here is ${PRIVATE_KEY}`,
        certificate: CERTIFICATE,
      },
      `received Bearer eyJhbGciOi.payload.signature with ${PRIVATE_KEY}`,
    );
    expectNoSecret(lines.join(''));
    const [record] = records();
    expect(record).toMatchObject({
      password: '[REDACTED]',
      connector: { client_secret: '[REDACTED]', api_key: '[REDACTED]', name: 'vault' },
      headers: { authorization: '[REDACTED]', 'user-agent': 'curl' },
      upstream_reply: 'here is [REDACTED PRIVATE KEY]\n',
      certificate: CERTIFICATE,
      message: 'received Bearer [REDACTED] with [REDACTED PRIVATE KEY]\n',
    });
  });

  it('scrubs the message and stack of an error logged under err', () => {
    const { logger, lines, records } = memoryLogger();
    logger.error({ err: new Error(`bad key ${PRIVATE_KEY}`) }, 'startup failed');
    expectNoSecret(lines.join(''));
    expect(records()[0]).toMatchObject({
      message: 'startup failed',
      err: {
        message: 'bad key [REDACTED PRIVATE KEY]\n',
        stack: expect.stringContaining('bad key [REDACTED'),
      },
    });
  });

  it('logs a cyclic object without throwing', () => {
    const { logger, records } = memoryLogger();
    const cyclic: Record<string, unknown> = { id: 'x' };
    cyclic.self = cyclic;
    logger.info({ cyclic }, 'cycle');
    expect(records()[0]).toMatchObject({ cyclic: { id: 'x', self: '[Circular]' } });
  });

  // Regression: formatters.log turns the Error into a plain object, then pino's default err
  // serializer re-serializes that object and reports its constructor, `Object`, as the type.
  //
  it('keeps the class name of a logged error', () => {
    const { logger, records } = memoryLogger();
    logger.error({ err: new ConfigError('SERVICE_PORT is bad') }, 'startup failed');
    expect(records()[0]).toMatchObject({ err: { type: 'ConfigError', message: 'SERVICE_PORT is bad' } });
  });

  // Regression: with no message argument pino copies error.message into `message` itself,
  // after the logMethod hook, so a private key in the error text is written verbatim.
  //
  it('scrubs the message pino takes from an error logged without a message', () => {
    const { logger, lines } = memoryLogger();
    logger.error(new Error(`bad key ${PRIVATE_KEY}`));
    logger.error({ err: new Error(`bad key ${PRIVATE_KEY}`) });
    expect(lines).toHaveLength(2);
    expectNoSecret(lines.join(''));
  });

  // Regression: only string arguments are scrubbed; objects interpolated with %j/%o and the
  // bindings of child loggers bypass redaction.
  it('redacts objects interpolated into the message', () => {
    const { logger, lines } = memoryLogger();
    logger.info('login attempt %j', { user: 'ada', password: 'hunter2' });
    expect(lines).toHaveLength(1);
    expectNoSecret(lines.join(''));
  });

  it('redacts the bindings of a child logger', () => {
    const { logger, lines } = memoryLogger();
    logger
      .child({ authorization: 'Bearer eyJhbGciOi.payload.signature', note: PRIVATE_KEY })
      .info('child line');
    expect(lines).toHaveLength(1);
    expectNoSecret(lines.join(''));
  });
});

describe(NestPinoLogger.name, () => {
  it("routes Nest's log levels into the pino logger, its start-up chatter at debug", () => {
    const { logger, records } = memoryLogger('trace');
    const nest = new NestPinoLogger(logger);
    nest.log('Mapped {/health, GET} route', 'RouterExplorer');
    nest.warn('slow', 'X');
    nest.error('failed with Bearer abc123', 'trace-text', 'Y');
    nest.debug('dbg');
    nest.verbose('vrb');
    expect(records().map((r) => [r.level, r.message, r.context])).toEqual([
      ['debug', 'Mapped {/health, GET} route', 'RouterExplorer'],
      ['warn', 'slow', 'X'],
      ['error', 'failed with Bearer [REDACTED]', 'Y'],
      ['debug', 'dbg', undefined],
      ['trace', 'vrb', undefined],
    ]);
    expect(records()[2].trace).toBe('trace-text');
  });
});
