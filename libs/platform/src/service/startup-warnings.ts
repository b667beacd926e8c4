import { CertlaneConfig } from '../config/certlane-config';
import { CertlaneLogger } from '../logging/logger';

export const NO_AUTH_BANNER = [
  '******************************************************************************',
  '* SERVICE_AUTH_TYPE=none: AUTHENTICATION IS OFF. Every request acts as        *',
  '* actor-demo-anon. Use this only for demos, or behind a gateway that           *',
  '* authenticates every request before it reaches Certlane.                      *',
  '******************************************************************************',
].join('\n');

/** Startup warnings for settings that are allowed but dangerous (spec 5.1: the none banner). */
export function warnAboutRiskySettings(
  config: CertlaneConfig,
  logger: CertlaneLogger,
  out: NodeJS.WritableStream = process.stderr,
): void {
  if (config.auth.type === 'none') {
    out.write(`${NO_AUTH_BANNER}\n`);
    logger.warn(
      { auth_type: 'none' },
      'authentication is disabled (SERVICE_AUTH_TYPE=none, demo mode acknowledged)',
    );
  }
  if (config.corsOrigins.includes('*')) {
    logger.warn('SERVICE_CORS_ORIGINS allows every origin (demo mode acknowledged)');
  }
  for (const name of config.unknownVariables)
    logger.warn({ variable: name }, 'unknown SERVICE_* variable ignored');
}
