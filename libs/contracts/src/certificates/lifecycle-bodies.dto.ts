import { IsBoolean, IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { OptionalRevocationReason, RevocationReason } from '../pki/revocation.dto';
import { CertificateFields } from './certificate.dto';

/**
 * HTTP bodies and queries of the certificate and job routes: the bus requests without the `id`,
 * which comes from the path (the gateway adds it).
 */
export class CertificateChanges extends CertificateFields {
  @IsOptional()
  @IsString()
  @Length(1, 253)
  common_name?: string;
}

export class RenewCertificateBody {
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

/** `force` in the query: `true` or `1` (spec 4.2); `false` and `0` are accepted as no. */
export class RenewCertificateQuery {
  @IsOptional()
  @IsIn(['true', '1', 'false', '0'], { message: 'force must be true, 1, false or 0' })
  force?: string;
}

export class DeployCertificateBody {
  @IsOptional()
  @IsString()
  @Length(1, 128)
  target_id?: string;
}

export class RevokeCertificateBody {
  @OptionalRevocationReason()
  reason?: RevocationReason;
}

export class PemExportQuery {
  @IsOptional()
  @IsIn(['true', 'false', '1', '0'], { message: 'download must be true or false' })
  download?: string;
}

export class ExportPkcs12Body {
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;
}

export class RejectJobBody {
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

export class VerifyJobBody {
  @IsOptional()
  @IsString()
  @Length(3, 300)
  endpoint?: string;

  @IsOptional()
  @IsString()
  @Length(1, 253)
  server_name?: string;
}
