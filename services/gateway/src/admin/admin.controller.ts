import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AccountDto,
  ApiKeyDto,
  CreateAccountDto,
  CreatedAccountDto,
  CreateReferenceSetDto,
  ErrorDto,
  IssueWebhookSecretDto,
  LedgerEntryDto,
  ReferenceSetDto,
  SaveLogoDto,
  SavePhotoDto,
  UpdateAccountDto,
  UrlSigningSecretDto,
  WebhookSecretDto,
} from '@thumbforge/contracts';
import type { Response } from 'express';
import { JsonObjectPipe } from '../http/json-object.pipe.js';
import { apiValidationPipe } from '../http/validation.pipe.js';
import { RebuildUseCase } from '../rebuild/rebuild.usecase.js';
import { AccountsUseCase } from './accounts.usecase.js';
import { AdminGuard } from './admin.guard.js';
import { AssetsUseCase } from './assets.usecase.js';

const body = () => [new JsonObjectPipe(), apiValidationPipe()];

/** The minimal, scriptable "dashboard" of DESIGN §6. */
@ApiTags('admin')
@ApiBearerAuth('admin-token')
@ApiResponse({ status: 401, type: ErrorDto })
@ApiResponse({ status: 403, type: ErrorDto, description: 'Admin API disabled (no ADMIN_TOKEN configured).' })
@UseGuards(AdminGuard)
@Controller('admin/v1')
export class AdminController {
  constructor(
    private readonly accounts: AccountsUseCase,
    private readonly assets: AssetsUseCase,
    private readonly rebuild: RebuildUseCase,
  ) {}

  @Post('accounts')
  @ApiCreatedResponse({ type: CreatedAccountDto })
  createAccount(@Body(...body()) dto: CreateAccountDto): Promise<CreatedAccountDto> {
    return this.accounts.create(dto);
  }

  @Get('accounts/:id')
  @ApiOkResponse({ type: AccountDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  getAccount(@Param('id') id: string): Promise<AccountDto> {
    return this.accounts.get(id);
  }

  @Patch('accounts/:id')
  @ApiOkResponse({ type: AccountDto })
  updateAccount(@Param('id') id: string, @Body(...body()) dto: UpdateAccountDto): Promise<AccountDto> {
    return this.accounts.update(id, dto);
  }

  @Post('accounts/:id/api-keys')
  @ApiCreatedResponse({ type: ApiKeyDto })
  rotateKey(@Param('id') id: string): Promise<ApiKeyDto> {
    return this.accounts.rotateKey(id);
  }

  @Post('accounts/:id/webhook-secrets')
  @ApiCreatedResponse({ type: WebhookSecretDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  issueWebhookSecret(
    @Param('id') id: string,
    @Body(...body()) dto: IssueWebhookSecretDto,
  ): Promise<WebhookSecretDto> {
    return this.accounts.issueWebhookSecret(id, dto);
  }

  @Post('accounts/:id/url-signing-secrets')
  @ApiCreatedResponse({ type: UrlSigningSecretDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  issueUrlSigningSecret(@Param('id') id: string): Promise<UrlSigningSecretDto> {
    return this.accounts.issueUrlSigningSecret(id);
  }

  @Put('accounts/:id/photo')
  @HttpCode(204)
  savePhoto(@Param('id') id: string, @Body(...body()) dto: SavePhotoDto): Promise<void> {
    return this.assets.savePhoto(id, dto);
  }

  @Delete('accounts/:id/photo')
  @HttpCode(204)
  removePhoto(@Param('id') id: string): Promise<void> {
    return this.assets.removePhoto(id);
  }

  @Put('accounts/:id/logo')
  @HttpCode(204)
  saveLogo(@Param('id') id: string, @Body(...body()) dto: SaveLogoDto): Promise<void> {
    return this.assets.saveLogo(id, dto);
  }

  @Delete('accounts/:id/logo')
  @HttpCode(204)
  removeLogo(@Param('id') id: string): Promise<void> {
    return this.assets.removeLogo(id);
  }

  @Post('accounts/:id/reference-sets')
  @ApiCreatedResponse({ type: ReferenceSetDto })
  createReferenceSet(
    @Param('id') id: string,
    @Body(...body()) dto: CreateReferenceSetDto,
  ): Promise<ReferenceSetDto> {
    return this.assets.createReferenceSet(id, dto);
  }

  @Delete('accounts/:id/reference-sets/:refId')
  @HttpCode(204)
  removeReferenceSet(@Param('id') id: string, @Param('refId') refId: string): Promise<void> {
    return this.assets.removeReferenceSet(id, refId);
  }

  @Get('accounts/:id/ledger')
  @ApiOkResponse({ type: [LedgerEntryDto] })
  ledger(@Param('id') id: string): Promise<LedgerEntryDto[]> {
    return this.accounts.ledger(id);
  }

  /** Streams NDJSON: `{"done":n,"total":m}` lines, then the report as `{"report":{…}}`. */
  @Post('rebuild')
  async runRebuild(@Res() res: Response): Promise<void> {
    res.status(200).setHeader('Content-Type', 'application/x-ndjson');
    const report = await this.rebuild.execute((progress) => res.write(`${JSON.stringify(progress)}\n`));
    res.end(`${JSON.stringify({ report })}\n`);
  }
}
