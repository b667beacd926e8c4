import { IsIn, IsIP, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/**
 * protocol-frontends.v1.acme-http: an `/acme/...` request as it reached the gateway, answered as
 * the protocol-frontends listener would (ADR 0053, as ADR 0038 does for /crl and /ocsp). The
 * body is the request body as it came (JSON text of a JWS, which authenticates it; anything else
 * is answered malformed).
 */
export class AcmeHttpForwardRequest {
  @IsIn(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
  method!: string;

  @IsString()
  @Matches(/^\/acme\/[\x21-\x7e]{0,1024}$/, { message: 'path must be an /acme/ path' })
  path!: string;

  /** `https://<Host>` as the client addressed the gateway: the JWS `url` must name it. */
  @IsString()
  @Matches(/^https:\/\/[\x21-\x7e]{1,300}$/, { message: 'origin must be https://<host>' })
  origin!: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  content_type?: string;

  /** The `Accept` header: the certificate download's format (RFC 8555 7.4.2). */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  accept?: string;

  /** The client's address as the gateway saw it (per-IP rate limits, ADR 0060). */
  @IsOptional()
  @IsIP()
  client_ip?: string;

  @IsOptional()
  @IsString()
  @MaxLength(1024 * 1024)
  body_json?: string;
}

export interface AcmeHttpForwardAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** The body as text (JSON or PEM); absent when there is none or it is binary. */
  body?: string;
  /** A binary body (a DER certificate, a PKCS#7), base64. */
  body_base64?: string;
}
