import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { CertificateLifecycleService } from './certificate-lifecycle.service';
import { CertificateService } from './certificate.service';
import { IssueAndRecordService } from './issue-and-record.service';

/** Serves the certificate inventory and lifecycle subjects of libs/contracts on the bus. */
@Injectable()
export class CertificateHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly certificates: CertificateService,
    private readonly lifecycle: CertificateLifecycleService,
    private readonly enrollments: IssueAndRecordService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('issuance.v1.list-certificates', (request) => this.certificates.list(request)),
      this.bus.handle('issuance.v1.get-certificate', (request) => this.certificates.get(request.id)),
      this.bus.handle('issuance.v1.create-certificate', (request, context) =>
        this.certificates.create(request, context),
      ),
      this.bus.handle('issuance.v1.issue-and-record', (request, context) =>
        this.enrollments.issueAndRecord(request, context),
      ),
      this.bus.handle('issuance.v1.update-certificate', (request, context) =>
        this.certificates.update(request, context),
      ),
      this.bus.handle('issuance.v1.archive-certificate', (request, context) =>
        this.certificates.archive(request.id, context),
      ),
      this.bus.handle('issuance.v1.list-certificate-versions', (request) =>
        this.certificates.versions(request),
      ),
      this.bus.handle('issuance.v1.renew-certificate', (request, context) =>
        this.lifecycle.renew(request, context),
      ),
      this.bus.handle('issuance.v1.deploy-certificate', (request, context) =>
        this.lifecycle.deploy(request, context),
      ),
      this.bus.handle('issuance.v1.revoke-certificate', (request, context) =>
        this.lifecycle.revokeSerial(request, context),
      ),
      this.bus.handle('issuance.v1.revoke-managed-certificate', (request, context) =>
        this.lifecycle.revoke(request, context),
      ),
      this.bus.handle('issuance.v1.export-certificate-pem', (request, context) =>
        this.certificates.exportPem(request.id, context),
      ),
      this.bus.handle('issuance.v1.export-certificate-pkcs12', (request, context) =>
        this.certificates.exportPkcs12(request, context),
      ),
    ]);
  }
}
