import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CERTLANE_CONFIG, CertlaneConfig, ServiceCoreModule } from '@certlane/platform';
import { AuditController } from './audit-routes/audit.controller';
import { AuthGuard } from './auth/auth.guard';
import { IdempotencyKeys } from './idempotency/idempotency-keys';
import { Authenticator } from './auth/authenticator';
import { GatewayFastLaneInstaller } from './fast-lane/fast-lane';
import { PrincipalCache } from './auth/principal-cache';
import { RetiredAgentKeys } from './auth/retired-agent-keys';
import { RouteEntry, routeTable } from './routes/route-table';
import { OpenApiController } from './openapi/openapi.controller';
import { DECLARED_ROUTES } from './declared-routes';
import { DeclaredRoutesMount } from './declared-routes-mount';
import { RouteDeclaration } from './routes/route-declaration';
import { RouteExecutor } from './routes/route-executor';
import { GATEWAY_ROUTES, MethodNotAllowedFallback } from './http/method-not-allowed';
import { BreakGlassLoginController } from './auth-routes/breakglass.controller';
import { OidcHandshakeController } from './auth-routes/oidc-handshake.controller';
import { LogoutController, SessionsController } from './auth-routes/sessions.controller';
import { CertificateExportsController } from './certificates/certificate-exports.controller';
import { RelyingPartyForwardingController } from './revocation-routes/relying-party-forwarding.controller';
import { AcmeForwardingController } from './acme-routes/acme-forwarding.controller';
import { EstForwardingController } from './est-routes/est-forwarding.controller';
import { ScepForwardingController } from './scep-routes/scep-forwarding.controller';
import { RevocationController } from './revocation-routes/revocation.controller';
import { WebAppFallback } from './web-app/web-app-fallback';

/**
 * Every Nest controller of the public API: the routes that stream, set cookies, return files or
 * need handling the route executor lacks. Forward-only routes are declared instead
 * (declared-routes.ts); gatewayRouteTable() lists both.
 */
export const GATEWAY_CONTROLLERS = [
  SessionsController,
  LogoutController,
  BreakGlassLoginController,
  OidcHandshakeController,
  AuditController,
  RevocationController,
  CertificateExportsController,
  // The API description (ADR 0049).
  OpenApiController,
];

/** The gateway's route table: the declared routes and the controllers' (the tests walk it). */
export function gatewayRouteTable(
  controllers: readonly Type[] = GATEWAY_CONTROLLERS,
  declared: readonly RouteDeclaration[] = DECLARED_ROUTES,
): RouteEntry[] {
  return routeTable(controllers, declared);
}

export interface ApiGatewayOptions {
  /**
   * Also answer the relying-party /crl and /ocsp paths, forwarded to the revocation service over
   * the bus (ADR 0038): for a gateway in its own process. Off where the revocation service's own
   * routes share the listener (the quick start).
   */
  forwardRelyingPartyPaths?: boolean;
  /**
   * Also answer `/acme/...` and `/.well-known/est/...`, forwarded to protocol-frontends over the
   * bus (ADR 0053, 0058): for a
   * gateway in its own process; off where the protocol-frontends routes share the listener.
   */
  forwardAcmePaths?: boolean;
}

/** The public API: authenticates, validates, and forwards to the owning service over the bus. */
@Module({})
export class ApiGatewayModule {
  static forRoot(options: ApiGatewayOptions = {}): DynamicModule {
    const controllers = [
      ...GATEWAY_CONTROLLERS,
      ...(options.forwardRelyingPartyPaths ? [RelyingPartyForwardingController] : []),
      ...(options.forwardAcmePaths
        ? [AcmeForwardingController, EstForwardingController, ScepForwardingController]
        : []),
    ];
    return {
      module: ApiGatewayModule,
      imports: [ServiceCoreModule.forService({ service: 'api-gateway' })],
      controllers,
      providers: [
        {
          provide: PrincipalCache,
          inject: [CERTLANE_CONFIG],
          useFactory: (config: CertlaneConfig) =>
            new PrincipalCache(5000, 100_000, config.auth.agentPrincipalCacheTtlMs),
        },
        Authenticator,
        RetiredAgentKeys,
        IdempotencyKeys,
        RouteExecutor,
        GatewayFastLaneInstaller,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: GATEWAY_ROUTES, useFactory: () => gatewayRouteTable(controllers) },
        // These add to the Express app when the modules initialise, in this order.
        DeclaredRoutesMount,
        MethodNotAllowedFallback,
        // The web GUI for whatever no route answered (ADR 0052).
        WebAppFallback,
      ],
    };
  }
}
