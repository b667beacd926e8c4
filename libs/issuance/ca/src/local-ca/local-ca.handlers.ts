import { Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { CrossCertificateService } from './cross-certificate.service';
import { IssuerService } from '../issuers/issuer.service';
import { LocalCaService } from './local-ca.service';

/** The baseline seed: the default local CA issuer, before any request is served. */
@Injectable()
export class LocalCaSeeder implements OnModuleInit {
  constructor(private readonly localCa: LocalCaService) {}

  async onModuleInit(): Promise<void> {
    await this.localCa.seedDefaultIssuer();
  }
}

/** Serves the issuer, intermediate-CA, issuance and revocation-support subjects on the bus. */
@Injectable()
export class IssuerHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly issuers: IssuerService,
    private readonly localCa: LocalCaService,
    private readonly crossCertificates: CrossCertificateService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-issuers', (request) => this.issuers.list(request)),
      this.bus.handle('issuance.v1.get-issuer', (request) => this.issuers.get(request.id)),
      this.bus.handle('issuance.v1.create-issuer', (request, context) =>
        this.issuers.create(request, context),
      ),
      this.bus.handle('issuance.v1.update-issuer', (request, context) =>
        this.issuers.update(request, context),
      ),
      this.bus.handle('issuance.v1.delete-issuer', (request, context) =>
        this.issuers.delete(request.id, context),
      ),
      this.bus.handle('issuance.v1.test-issuer', (request, context) =>
        this.issuers.test(request.id, context),
      ),
      this.bus.handle('issuance.v1.list-cas', (request) => this.localCa.listCas(request)),
      this.bus.handle('issuance.v1.get-ca', (request) => this.localCa.getCa(request.id)),
      this.bus.handle('issuance.v1.create-ca', (request, context) => this.localCa.createCa(request, context)),
      this.bus.handle('issuance.v1.retire-ca', (request, context) =>
        this.localCa.retireCa(request.id, context),
      ),
      this.bus.handle('issuance.v1.revoke-ca', (request, context) => this.localCa.revokeCa(request, context)),
      this.bus.handle('issuance.v1.install-ca-certificate', (request, context) =>
        this.localCa.installCertificate(request, context),
      ),
      this.bus.handle('issuance.v1.create-ca-cross-certificate', (request, context) =>
        this.crossCertificates.create(request, context),
      ),
      this.bus.handle('issuance.v1.list-ca-cross-certificates', (request) =>
        this.crossCertificates.list(request),
      ),
      this.bus.handle('issuance.v1.retire-ca-cross-certificate', (request, context) =>
        this.crossCertificates.retire(request, context),
      ),
      this.bus.handle('issuance.v1.revoke-ca-cross-certificate', (request, context) =>
        this.crossCertificates.revoke(request, context),
      ),
      this.bus.handle('issuance.v1.issue-certificate', (request, context) =>
        this.localCa.issue(request, context),
      ),
      this.bus.handle('issuance.v1.get-issuer-ca', (request) =>
        this.localCa.issuerCaInfo(request.issuer_id, request.ca_id),
      ),
      this.bus.handle('issuance.v1.sign-digest', (request) => this.localCa.signDigest(request)),
      this.bus.handle('issuance.v1.issue-ocsp-responder', (request, context) =>
        this.localCa.issueOcspResponder(request, context),
      ),
    ]);
  }
}
