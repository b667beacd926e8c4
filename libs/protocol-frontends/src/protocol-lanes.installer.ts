import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  CERTLANE_CONFIG,
  CertlaneConfig,
  CertlaneLogger,
  clientIpReader,
  LOGGER,
  Metrics,
  METRICS,
} from '@certlane/platform';
import { acmeLane } from './acme/acme-fast-lane';
import { AcmeService } from './acme/acme.service';
import { estLane } from './est/est-fast-lane';
import { EstService } from './est/est.service';
import { installProtocolLane } from './protocol-fast-lane';
import { scepLane } from './scep/scep-fast-lane';
import { ScepService } from './scep/scep.service';

/** Installs the ACME, EST and SCEP fast lanes on the service's own listener when the application boots. */
@Injectable()
export class ProtocolLanesInstaller implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly est: EstService,
    private readonly scep: ScepService,
    private readonly acme: AcmeService,
    @Inject(CERTLANE_CONFIG) private readonly config: CertlaneConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(LOGGER) private readonly logger: CertlaneLogger,
  ) {}

  onApplicationBootstrap(): void {
    const observability = { metrics: this.metrics, logger: this.logger };
    installProtocolLane(
      this.adapterHost,
      estLane((request) => this.est.server.handle(request)),
      observability,
    );
    installProtocolLane(
      this.adapterHost,
      scepLane((request) => this.scep.server.handle(request)),
      observability,
    );
    installProtocolLane(
      this.adapterHost,
      acmeLane((request) => this.acme.server.handle(request), clientIpReader(this.config.trustedProxies)),
      observability,
    );
  }
}
