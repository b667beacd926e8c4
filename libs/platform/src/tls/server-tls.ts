import { readFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import { createSecureContext, SecureContextOptions } from 'node:tls';
import { ConfigError } from '../config/config-error';
import { CertlaneLogger } from '../logging/logger';

/** TLS 1.3 only (spec 1). There is deliberately no option to lower it or to serve plaintext. */
export const MIN_TLS_VERSION = 'TLSv1.3' as const;

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

export function readTlsMaterial(paths: { certPath: string; keyPath: string }): TlsMaterial {
  let cert: Buffer;
  let key: Buffer;
  try {
    cert = readFileSync(paths.certPath);
  } catch (error) {
    throw new ConfigError(
      `SERVICE_TLS_CERT_PATH ${paths.certPath} cannot be read: ${(error as Error).message}`,
    );
  }
  try {
    key = readFileSync(paths.keyPath);
  } catch (error) {
    throw new ConfigError(
      `SERVICE_TLS_KEY_PATH ${paths.keyPath} cannot be read: ${(error as Error).message}`,
    );
  }
  try {
    createSecureContext({ cert, key, minVersion: MIN_TLS_VERSION });
  } catch (error) {
    throw new ConfigError(
      `the TLS certificate and key do not form a usable pair: ${(error as Error).message}`,
    );
  }
  return { cert, key };
}

/**
 * With `requestClientCert` (SERVICE_TLS_REQUEST_CLIENT_CERT) the listener asks every client for a
 * certificate and neither requires nor verifies one (ADR 0061): the mutual-TLS protocol paths
 * (EST, SCEP) check what was presented against their own per-profile anchors; everything else
 * ignores it. Off by default, so browsers are never asked on the GUI.
 */
export function httpsServerOptions(
  material: TlsMaterial,
  requestClientCert = false,
): SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean } {
  return {
    cert: material.cert,
    key: material.key,
    minVersion: MIN_TLS_VERSION,
    requestCert: requestClientCert,
    rejectUnauthorized: false,
  };
}

/**
 * Re-reads the certificate and key on SIGHUP and swaps them into the running server: new
 * handshakes get the new certificate, open connections are untouched. A bad pair is logged and
 * the previous certificate stays in service. Returns a function that removes the handler.
 */
export function reloadTlsOnSighup(
  server: HttpsServer,
  paths: { certPath: string; keyPath: string },
  logger: CertlaneLogger,
): () => void {
  const reload = () => {
    try {
      server.setSecureContext(httpsServerOptions(readTlsMaterial(paths)));
      logger.info({ cert_path: paths.certPath }, 'TLS certificate reloaded');
    } catch (error) {
      logger.error(
        { err: error },
        'TLS certificate reload failed; the previous certificate stays in service',
      );
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
