import {
  ArrayMaxSize,
  IsArray,
  IsBase64,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';

/** An EST request the gateway forwards to protocol-frontends as it came (ADR 0058, the way of ADR 0053). */
export class EstHttpForwardRequest {
  @IsIn(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
  method!: string;

  @IsString()
  @Matches(/^\/\.well-known\/est(?:-mtls)?\/[\x21-\x7e]{0,200}$/, {
    message: 'path must be a /.well-known/est/ or /.well-known/est-mtls/ path',
  })
  path!: string;

  /** The client's Authorization header (HTTP Basic): checked by protocol-frontends, never logged. */
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  authorization?: string;

  @IsOptional()
  @IsString()
  @MaxLength(256 * 1024)
  body?: string;

  /**
   * The certificates the client sent on its TLS connection to the gateway, leaf first, base64
   * DER, unverified (ADR 0061): protocol-frontends checks them against the profile's anchors.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @IsBase64(undefined, { each: true })
  @MaxLength(32 * 1024, { each: true })
  client_certificates?: string[];

  /** The tls-exporter channel binding (RFC 9266) of the client's connection, base64. */
  @IsOptional()
  @IsBase64()
  @MaxLength(128)
  tls_exporter?: string;
}

export interface EstHttpForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}
