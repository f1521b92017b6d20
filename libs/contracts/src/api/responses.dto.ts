import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FORMATS, OUTPUT_FORMATS, type Format, type OutputFormat } from '../formats.js';

export class DimensionsDto {
  @ApiProperty() width!: number;
  @ApiProperty() height!: number;
}

/** Spec §2.3, plus `dimensions` (DESIGN §5). */
export class GenerationResultDto {
  @ApiProperty({ description: 'data:image/webp;base64,… or data:image/png;base64,…' })
  image!: string;
  @ApiProperty({ enum: FORMATS }) format!: Format;
  @ApiProperty({ enum: OUTPUT_FORMATS }) outputFormat!: OutputFormat;
  @ApiProperty({ example: 'gen_01JBZ8W5Y2Q7H3M6K9P4R8T2VX' }) generationId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null when the CDN upload failed' })
  imageUrl!: string | null;
  @ApiProperty({ type: DimensionsDto }) dimensions!: DimensionsDto;
}

/** Spec §2.4. */
export class JobAcceptedDto {
  @ApiProperty() jobId!: string;
  @ApiProperty({ enum: ['processing'] }) status!: 'processing';
  @ApiProperty() webhookUrl!: string;
}

export const JOB_STATUSES = ['processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export class WebhookDeliveryStateDto {
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty() attempts!: number;
  @ApiPropertyOptional({ type: String, nullable: true }) lastError!: string | null;
}

export class JobStatusDto {
  @ApiProperty() jobId!: string;
  @ApiProperty({ enum: JOB_STATUSES }) status!: JobStatus;
  @ApiPropertyOptional({ type: GenerationResultDto }) result?: GenerationResultDto;
  @ApiPropertyOptional() error?: string;
  @ApiPropertyOptional({ type: String, nullable: true }) webhookUrl!: string | null;
  @ApiPropertyOptional({ type: WebhookDeliveryStateDto }) webhook?: WebhookDeliveryStateDto;
}

/** Every error response (DESIGN §4). */
export class ErrorDto {
  @ApiProperty({ example: 'title is required' }) error!: string;
  @ApiProperty({ enum: Object.values(ERROR_CODES), example: 'INVALID_REQUEST' }) code!: ErrorCode;
}
