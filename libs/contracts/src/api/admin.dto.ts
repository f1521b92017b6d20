import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  Min,
} from 'class-validator';
import { FORMATS, LIMITS, LOGO_POSITIONS, type Format, type LogoPosition } from '../formats.js';
import { PLANS, type Plan } from '../plans.js';

export class CreateAccountDto {
  @ApiProperty({ enum: PLANS })
  @IsIn(PLANS, { message: `plan must be one of ${PLANS.join(', ')}` })
  plan!: Plan;

  @ApiPropertyOptional({ nullable: true, default: true })
  @IsOptional()
  @IsBoolean({ message: 'apiAccess must be a boolean' })
  apiAccess?: boolean;
}

export class UpdateAccountDto {
  @ApiPropertyOptional({ nullable: true, enum: PLANS })
  @IsOptional()
  @IsIn(PLANS, { message: `plan must be one of ${PLANS.join(', ')}` })
  plan?: Plan;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsBoolean({ message: 'apiAccess must be a boolean' })
  apiAccess?: boolean;
}

export class CreditsDto {
  @ApiProperty() allowance!: number;
  @ApiProperty() used!: number;
  @ApiProperty() reserved!: number;
  @ApiProperty() remaining!: number;
  @ApiProperty() periodStart!: string;
  @ApiProperty() periodEnd!: string;
}

export class AccountDto {
  @ApiProperty() accountId!: string;
  @ApiProperty({ enum: PLANS }) plan!: Plan;
  @ApiProperty() apiAccess!: boolean;
  @ApiProperty({ type: CreditsDto }) credits!: CreditsDto;
}

export class CreatedAccountDto {
  @ApiProperty() accountId!: string;
  @ApiProperty({ description: 'Shown once; store it in server-side configuration.' }) apiKey!: string;
  @ApiProperty({ enum: PLANS }) plan!: Plan;
  @ApiProperty() apiAccess!: boolean;
}

export class ApiKeyDto {
  @ApiProperty() apiKey!: string;
}

export class IssueWebhookSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    default: 86400,
    minimum: 0,
    maximum: 604800,
    description: 'How long the secrets issued before keep signing beside the new one, in seconds.',
  })
  @IsOptional()
  @IsInt({ message: 'overlapSeconds must be an integer' })
  @Min(0, { message: 'overlapSeconds must be between 0 and 604800' })
  @Max(604800, { message: 'overlapSeconds must be between 0 and 604800' })
  overlapSeconds?: number;
}

export class WebhookSecretDto {
  @ApiProperty({ description: 'Standard Webhooks secret (`whsec_…`); shown once.' }) secret!: string;
  @ApiProperty({ description: 'When the secrets issued before this one stop signing (ISO 8601).' })
  previousSecretsExpireAt!: string;
}

export class UrlSigningSecretDto {
  @ApiProperty({
    description:
      'Signs image URLs (`GET /v1/og/…`); shown once. Issuing another replaces it, and URLs signed with this one then answer 403.',
  })
  secret!: string;
}

export class SavePhotoDto {
  @ApiProperty({ description: 'Data URL of a PNG, JPEG or WebP image, at most 2 MB decoded.' })
  @IsString({ message: 'image must be a data URL string' })
  image!: string;
}

export class SaveLogoDto {
  @ApiProperty({ description: 'Data URL of a PNG, JPEG or WebP image, at most 1 MB decoded.' })
  @IsString({ message: 'image must be a data URL string' })
  image!: string;

  @ApiPropertyOptional({ nullable: true, enum: LOGO_POSITIONS, default: 'bottom-right' })
  @IsOptional()
  @IsIn(LOGO_POSITIONS, { message: `position must be one of ${LOGO_POSITIONS.join(', ')}` })
  position?: LogoPosition;

  @ApiPropertyOptional({
    nullable: true,
    minimum: LIMITS.logoSizeMin,
    maximum: LIMITS.logoSizeMax,
    default: 0.15,
  })
  @IsOptional()
  @IsNumber({}, { message: 'size must be a number' })
  @Min(LIMITS.logoSizeMin, { message: `size must be at least ${LIMITS.logoSizeMin}` })
  @Max(LIMITS.logoSizeMax, { message: `size must be at most ${LIMITS.logoSizeMax}` })
  size?: number;

  @ApiPropertyOptional({ nullable: true, default: false })
  @IsOptional()
  @IsBoolean({ message: 'dropShadow must be a boolean' })
  dropShadow?: boolean;
}

export class CreateReferenceSetDto {
  @ApiProperty({ enum: FORMATS })
  @IsIn(FORMATS, { message: `format must be one of ${FORMATS.join(', ')}` })
  format!: Format;

  @ApiProperty({ type: [String], minItems: 1, maxItems: 6 })
  @IsArray({ message: 'images must be an array of data URLs' })
  @ArrayMinSize(LIMITS.referenceSetMinImages, { message: 'images must hold 1 to 6 data URLs' })
  @ArrayMaxSize(LIMITS.referenceSetMaxImages, { message: 'images must hold 1 to 6 data URLs' })
  @IsString({ each: true, message: 'images must be an array of data URLs' })
  images!: string[];
}

export class ReferenceSetDto {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: FORMATS }) format!: Format;
  @ApiProperty() imageCount!: number;
}

export const LEDGER_ENTRY_KINDS = ['period-started', 'reserved', 'captured', 'released'] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

export class LedgerEntryDto {
  @ApiProperty() eventId!: string;
  @ApiProperty({ enum: LEDGER_ENTRY_KINDS }) kind!: LedgerEntryKind;
  @ApiProperty({ type: String, nullable: true }) jobId!: string | null;
  @ApiProperty() amount!: number;
  @ApiProperty() at!: string;
}
