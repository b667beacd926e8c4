import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';

export const CONTACT_KIND_VALUES = ['owner', 'team'] as const;
export type ContactKindValue = (typeof CONTACT_KIND_VALUES)[number];

export class ContactKeyRequest {
  @IsIn(CONTACT_KIND_VALUES as unknown as string[], { message: 'kind must be owner or team' })
  kind!: ContactKindValue;

  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  subject_id!: string;
}

/** The body of PUT /api/v1/contacts/{kind}/{subject_id}: the addresses, replacing the old ones. */
export class ContactChanges {
  @IsArray()
  @ArrayMaxSize(50)
  @IsEmail({}, { each: true, message: 'addresses must be email addresses' })
  addresses!: string[];
}

export class SetContactRequest extends ContactKeyRequest {
  @IsArray()
  @ArrayMaxSize(50)
  @IsEmail({}, { each: true, message: 'addresses must be email addresses' })
  addresses!: string[];
}

/** The contact addresses of an owner or a team: the recipients an email notifier adds. */
export interface ContactDto {
  kind: ContactKindValue;
  subject_id: string;
  addresses: string[];
}
