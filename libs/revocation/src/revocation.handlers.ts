import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import {
  AnswerOcspRequest,
  CertlaneError,
  CrlDocument,
  ErrorCode,
  GetCrlRequest,
  ListRevocationsRequest,
  OcspResponseDocument,
  RevocationList,
} from '@certlane/contracts';
import { MESSAGE_BUS, MessageBus } from '@certlane/platform';
import { MAX_OCSP_REQUEST_BYTES } from '@certlane/pki';
import { CrlPublisher } from './crl/crl-publisher';
import { entriesWithinBytes } from './crl/crl-parts';
import { CrlRepository, CrlState } from './crl/crl.repository';
import { RelyingPartyOcsp } from './http/relying-party-ocsp';
import { OcspAnswer, OcspService } from './ocsp/ocsp.service';
import { RevocationRepository } from './revocations/revocation.repository';
import { IssuerCaDirectory } from './issuer-ca.directory';

/**
 * Serves the revocation.v1.* subjects the gateway forwards its CRL and OCSP routes to: the
 * /api/v1 routes, and in the separate-services deployment the relying-party /crl and /ocsp paths.
 */
@Injectable()
export class RevocationHandlers implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly crls: CrlPublisher,
    private readonly crlStates: CrlRepository,
    private readonly ocsp: OcspService,
    private readonly revocations: RevocationRepository,
    private readonly directory: IssuerCaDirectory,
    private readonly relyingPartyOcsp: RelyingPartyOcsp,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await Promise.all([
      this.bus.handle('revocation.v1.list-revocations', (request) => this.list(request)),
      this.bus.handle('revocation.v1.get-crl', (request) => this.crl(request)),
      this.bus.handle('revocation.v1.get-ocsp-response', (request) =>
        this.ocspResponse(request.issuer_id, request.serial_hex, request.ca_id),
      ),
      this.bus.handle('revocation.v1.answer-ocsp', (request) => this.answerOcsp(request)),
    ]);
  }

  private async list(request: ListRevocationsRequest): Promise<RevocationList> {
    if (request.issuer_id !== undefined) await this.directory.get(request.issuer_id);
    const { rows, total } = await this.revocations.page(
      request.issuer_id,
      request.limit ?? 1000,
      request.offset ?? 0,
    );
    // One bus message holds the reply: the entries stop before LIST_ENTRIES_MAX_BYTES (review H2).
    const page = entriesWithinBytes(
      rows.map((row) => ({
        issuer_id: row.issuer_id,
        serial_number: row.serial_hex,
        revocation_date: row.revoked_at.toISOString(),
        revocation_reason: row.reason,
      })),
    );
    return {
      version: Number(await this.crlStates.highestNumber(request.issuer_id)),
      entries: page,
      total,
      generated_at: new Date().toISOString(),
    };
  }

  private async crl({ issuer_id: issuerId, ca_id: caId, part }: GetCrlRequest): Promise<CrlDocument> {
    if (part !== undefined) {
      // In parts of at most CRL_PART_BYTES, so a CRL of any size crosses the bus (review H2).
      const answer = await this.crls.currentPart(issuerId, caId, part);
      return { ...crlDocument(issuerId, answer.state, answer.bytes), part, parts: answer.parts };
    }
    const state = await this.crls.current(issuerId, caId);
    return crlDocument(issuerId, state, state.der);
  }

  private async answerOcsp(request: AnswerOcspRequest): Promise<OcspResponseDocument> {
    if (request.form === 'get') {
      return ocspDocument(await this.relyingPartyOcsp.get(request.issuer_id, request.request));
    }
    const body = Buffer.from(request.request, 'base64');
    if (body.length > MAX_OCSP_REQUEST_BYTES) {
      throw new CertlaneError(
        ErrorCode.PayloadTooLarge,
        `request body exceeds ${MAX_OCSP_REQUEST_BYTES} bytes`,
      );
    }
    return ocspDocument(await this.relyingPartyOcsp.post(request.issuer_id, body));
  }

  private async ocspResponse(
    issuerId: string,
    serialHex: string,
    caId?: string,
  ): Promise<OcspResponseDocument> {
    return ocspDocument(await this.ocsp.forSerial(issuerId, serialHex.toLowerCase(), caId));
  }
}

function crlDocument(issuerId: string, state: Omit<CrlState, 'der'>, der: Buffer): CrlDocument {
  return {
    issuer_id: issuerId,
    ca_id: state.ca_id,
    crl_number: state.crl_number.toString(),
    this_update: state.this_update.toISOString(),
    next_update: state.next_update.toISOString(),
    crl_base64: der.toString('base64'),
  };
}

function ocspDocument(answer: OcspAnswer): OcspResponseDocument {
  return {
    response_base64: answer.der.toString('base64'),
    produced_at: answer.times?.producedAt.toISOString(),
    this_update: answer.times?.thisUpdate.toISOString(),
    next_update: answer.times?.nextUpdate.toISOString(),
  };
}
