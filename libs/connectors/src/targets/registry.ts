import type { TargetType } from '@certlane/contracts';
import { apacheConnector } from './apache/apache.connector';
import { caddyConnector } from './caddy/caddy.connector';
import { dovecotConnector } from './dovecot/dovecot.connector';
import type { DeploymentEngineOptions } from './engine/deploy-engine';
import { envoyConnector } from './envoy/envoy.connector';
import { haproxyConnector } from './haproxy/haproxy.connector';
import { javaKeystoreConnector } from './java-keystore/java-keystore.connector';
import { nginxConnector } from './nginx/nginx.connector';
import { postfixConnector } from './postfix/postfix.connector';
import type { TargetConnector } from './target-connector';
import { traefikConnector } from './traefik/traefik.connector';

const FACTORIES: Partial<Record<TargetType, (options: DeploymentEngineOptions) => TargetConnector>> = {
  nginx: nginxConnector,
  apache: apacheConnector,
  haproxy: haproxyConnector,
  caddy: caddyConnector,
  traefik: traefikConnector,
  envoy: envoyConnector,
  postfix: postfixConnector,
  dovecot: dovecotConnector,
  java_keystore: javaKeystoreConnector,
};

/** The kinds an agent deploys with this library. */
export const IMPLEMENTED_TARGET_TYPES = Object.keys(FACTORIES) as TargetType[];

export class TargetKindNotImplementedError extends Error {
  constructor(readonly type: string) {
    super(
      type === 'ssh'
        ? 'target kind ssh is deployed agentless by deployment-dispatch, not by a connector of this library'
        : `target kind ${type} has no connector yet (implemented: ${IMPLEMENTED_TARGET_TYPES.join(', ')})`,
    );
    this.name = 'TargetKindNotImplementedError';
  }
}

/** The connector of a target kind; throws TargetKindNotImplementedError for iis, ssh and the API kinds. */
export function targetConnector(
  type: TargetType | string,
  options: DeploymentEngineOptions = {},
): TargetConnector {
  const factory = FACTORIES[type as TargetType];
  if (!factory) throw new TargetKindNotImplementedError(type);
  return factory(options);
}
