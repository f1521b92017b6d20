import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  ValidateBy,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import {
  CATEGORIES,
  FORMATS,
  LIMITS,
  MODELS,
  OUTPUT_FORMATS,
  type Category,
  type Format,
  type Model,
  type OutputFormat,
} from '../formats.js';

export const LEGACY_IMAGE_STYLES = ['faceless', 'with-image', 'with-photo', 'with-logo'] as const;
export type LegacyImageStyle = (typeof LEGACY_IMAGE_STYLES)[number];

const list = (values: readonly string[]) => values.join(', ');

/**
 * A character that shows: not whitespace, a control or format character (zero-width space, joiners,
 * direction marks), nor one of the blank letters fonts draw as nothing (Hangul fillers, braille blank).
 */
export const VISIBLE_CHARACTER = /[^\p{White_Space}\p{Cc}\p{Cf}\p{Z}\u115F\u1160\u3164\uFFA0\u2800]/u;
/** Control characters other than tab and line breaks have no place in a title. */
export const CONTROL_CHARACTER = /(?![\t\n\r])\p{Cc}/u;

/** A string rule under its own name, so each failure keeps its own message. */
const stringRule = (name: string, test: (value: string) => boolean, message: string) =>
  ValidateBy(
    {
      name,
      validator: { validate: (value: unknown) => typeof value !== 'string' || test(value) },
      constraints: [],
    },
    { message },
  );

/** Body of `POST /v1/generate` (spec §2.1). Unknown fields are ignored; null means absent. */
export class GenerateRequestDto {
  @ApiProperty({ maxLength: LIMITS.titleMaxLength, example: 'I Tried Every AI Thumbnail Tool' })
  @IsString({ message: 'title must be a string' })
  @IsNotEmpty({ message: 'title is required' })
  @MaxLength(LIMITS.titleMaxLength, { message: `title must be at most ${LIMITS.titleMaxLength} characters` })
  @stringRule(
    'hasVisibleCharacter',
    (v) => VISIBLE_CHARACTER.test(v),
    'title must contain a visible character',
  )
  @stringRule(
    'hasNoControlCharacter',
    (v) => !CONTROL_CHARACTER.test(v),
    'title must not contain control characters',
  )
  title!: string;

  @ApiPropertyOptional({ enum: FORMATS, description: 'Required unless customAssetsId is given.' })
  @ValidateIf((o: GenerateRequestDto) => !o.customAssetsId)
  @IsIn(FORMATS, { message: `format must be one of ${list(FORMATS)}` })
  format?: Format;

  @ApiPropertyOptional({ nullable: true, enum: CATEGORIES, default: 'auto' })
  @IsOptional()
  @IsIn(CATEGORIES, { message: `category must be one of ${list(CATEGORIES)}` })
  category?: Category;

  @ApiPropertyOptional({ nullable: true, default: false })
  @IsOptional()
  @IsBoolean({ message: 'usePhoto must be a boolean' })
  usePhoto?: boolean;

  @ApiPropertyOptional({ nullable: true, default: false })
  @IsOptional()
  @IsBoolean({ message: 'useLogo must be a boolean' })
  useLogo?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    description: 'Data URL of a PNG, JPEG or WebP photo, at most 2 MB decoded.',
  })
  @IsOptional()
  @IsString({ message: 'photoImage must be a data URL string' })
  photoImage?: string;

  @ApiPropertyOptional({
    nullable: true,
    description: 'Data URL of a PNG, JPEG or WebP logo, at most 1 MB decoded.',
  })
  @IsOptional()
  @IsString({ message: 'logoImage must be a data URL string' })
  logoImage?: string;

  @ApiPropertyOptional({
    nullable: true,
    description: 'Saved reference set id; its stored format is applied.',
    minLength: 1,
  })
  @IsOptional()
  @IsString({ message: 'customAssetsId must be a string' })
  @IsNotEmpty({ message: 'customAssetsId must not be empty' })
  customAssetsId?: string;

  @ApiPropertyOptional({ nullable: true, enum: MODELS, default: 'sd' })
  @IsOptional()
  @IsIn(MODELS, { message: `model must be one of ${list(MODELS)}` })
  model?: Model;

  @ApiPropertyOptional({ nullable: true, enum: OUTPUT_FORMATS, default: 'webp' })
  @IsOptional()
  @IsIn(OUTPUT_FORMATS, { message: `outputFormat must be one of ${list(OUTPUT_FORMATS)}` })
  outputFormat?: OutputFormat;

  @ApiPropertyOptional({ nullable: true, description: 'When present the request is asynchronous.' })
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false, require_host: true },
    { message: 'webhookUrl must be an absolute http or https URL' },
  )
  webhookUrl?: string;

  @ApiPropertyOptional({ nullable: true, enum: LEGACY_IMAGE_STYLES, deprecated: true })
  @IsOptional()
  @IsIn(LEGACY_IMAGE_STYLES, { message: `imageStyle must be one of ${list(LEGACY_IMAGE_STYLES)}` })
  imageStyle?: LegacyImageStyle;

  @ApiPropertyOptional({
    nullable: true,
    deprecated: true,
    description: 'photoImage or logoImage, by imageStyle.',
  })
  @IsOptional()
  @IsString({ message: 'personImage must be a data URL string' })
  personImage?: string;

  @ApiPropertyOptional({ nullable: true, deprecated: true })
  @IsOptional()
  @IsBoolean({ message: 'usePersonalPhoto must be a boolean' })
  usePersonalPhoto?: boolean;
}

/** The request after defaults and the legacy mapping: what every later check reads. */
export interface NormalizedGenerateRequest {
  title: string;
  format: Format | null;
  category: Category;
  usePhoto: boolean;
  useLogo: boolean;
  photoImage: string | null;
  logoImage: string | null;
  customAssetsId: string | null;
  model: Model;
  outputFormat: OutputFormat;
  webhookUrl: string | null;
  /** Images sent but not used (their flag is off, or a newer field won): still validated. */
  unusedImages: Array<{ field: 'photoImage' | 'logoImage' | 'personImage'; dataUrl: string }>;
}

/**
 * Applies defaults and the legacy fields of spec §2.1. The new fields win where both are sent;
 * legacy values only fill what the new ones leave unset.
 */
export function normalizeGenerateRequest(dto: GenerateRequestDto): NormalizedGenerateRequest {
  let usePhoto = dto.usePhoto;
  let useLogo = dto.useLogo;
  let photoImage = dto.photoImage ?? null;
  let logoImage = dto.logoImage ?? null;

  switch (dto.imageStyle) {
    case 'faceless':
      usePhoto ??= false;
      useLogo ??= false;
      break;
    case 'with-image':
    case 'with-photo':
      usePhoto ??= true;
      if (dto.personImage && !photoImage) photoImage = dto.personImage;
      break;
    case 'with-logo':
      useLogo ??= true;
      if (dto.personImage && !logoImage) logoImage = dto.personImage;
      break;
  }
  if (dto.usePersonalPhoto === true) usePhoto ??= true;

  const usedPhoto = usePhoto ? photoImage : null;
  const usedLogo = useLogo ? logoImage : null;
  const sent = [
    ['photoImage', dto.photoImage],
    ['logoImage', dto.logoImage],
    ['personImage', dto.personImage],
  ] as const;
  const unusedImages = sent.flatMap(([field, dataUrl]) =>
    dataUrl !== undefined && dataUrl !== usedPhoto && dataUrl !== usedLogo ? [{ field, dataUrl }] : [],
  );

  return {
    title: dto.title,
    format: dto.customAssetsId ? null : (dto.format ?? null),
    category: dto.category ?? 'auto',
    usePhoto: usePhoto ?? false,
    useLogo: useLogo ?? false,
    photoImage: usedPhoto,
    logoImage: usedLogo,
    customAssetsId: dto.customAssetsId ?? null,
    model: dto.model ?? 'sd',
    outputFormat: dto.outputFormat ?? 'webp',
    webhookUrl: dto.webhookUrl ?? null,
    unusedImages,
  };
}
