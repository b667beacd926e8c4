import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/**
 * A SCEP request the gateway forwards to protocol-frontends as it came (ADR 0059, the way of
 * ADR 0053 and 0058). SCEP bodies are binary DER: they travel base64.
 */
export class ScepHttpForwardRequest {
  @IsIn(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
  method!: string;

  @IsString()
  @Matches(/^\/scep(-mtls)?(\/[\x21-\x7e]{0,200})?$/, { message: 'path must be a /scep path' })
  path!: string;

  /** The raw query string (without `?`): `operation` and `message` (RFC 8894 4.1). */
  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  query?: string;

  @IsOptional()
  @IsString()
  @MaxLength(512 * 1024)
  body_base64?: string;

  /**
   * The certificates the client sent on its TLS connection (leaf first, base64 DER, unverified),
   * as the EST mTLS paths forward them: protocol-frontends checks them against the profile's
   * trust bundle.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @IsString({ each: true })
  @MaxLength(16 * 1024, { each: true })
  client_certificates?: string[];
}

export interface ScepHttpForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body_base64?: string;
}
