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
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
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
} from '@thumbforge/contracts/api';
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

  @ApiOperation({ summary: 'Create an account and its first API key' })
  @ApiResponse({ status: 400, type: ErrorDto })
  @Post('accounts')
  @ApiCreatedResponse({ type: CreatedAccountDto })
  createAccount(@Body(...body()) dto: CreateAccountDto): Promise<CreatedAccountDto> {
    return this.accounts.create(dto);
  }

  @ApiOperation({ summary: 'Get an account with its plan and credits' })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Get('accounts/:id')
  @ApiOkResponse({ type: AccountDto })
  getAccount(@Param('id') id: string): Promise<AccountDto> {
    return this.accounts.get(id);
  }

  @ApiOperation({ summary: "Change an account's plan or API access" })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Patch('accounts/:id')
  @ApiOkResponse({ type: AccountDto })
  updateAccount(@Param('id') id: string, @Body(...body()) dto: UpdateAccountDto): Promise<AccountDto> {
    return this.accounts.update(id, dto);
  }

  @ApiOperation({ summary: 'Issue a new API key; the old one stops working' })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Post('accounts/:id/api-keys')
  @ApiCreatedResponse({ type: ApiKeyDto })
  rotateKey(@Param('id') id: string): Promise<ApiKeyDto> {
    return this.accounts.rotateKey(id);
  }

  @Post('accounts/:id/webhook-secrets')
  @ApiOperation({
    summary: 'Issue a Standard Webhooks signing secret (the previous one stays valid for the overlap)',
  })
  @ApiCreatedResponse({ type: WebhookSecretDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  issueWebhookSecret(
    @Param('id') id: string,
    @Body(...body()) dto: IssueWebhookSecretDto,
  ): Promise<WebhookSecretDto> {
    return this.accounts.issueWebhookSecret(id, dto);
  }

  @Post('accounts/:id/url-signing-secrets')
  @ApiOperation({
    summary: 'Issue the secret that signs image URLs (URLs signed with the previous one stop working)',
  })
  @ApiCreatedResponse({ type: UrlSigningSecretDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  issueUrlSigningSecret(@Param('id') id: string): Promise<UrlSigningSecretDto> {
    return this.accounts.issueUrlSigningSecret(id);
  }

  @ApiOperation({ summary: "Save the account's photo" })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Put('accounts/:id/photo')
  @HttpCode(204)
  @ApiNoContentResponse()
  savePhoto(@Param('id') id: string, @Body(...body()) dto: SavePhotoDto): Promise<void> {
    return this.assets.savePhoto(id, dto);
  }

  @ApiOperation({ summary: "Remove the account's saved photo" })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Delete('accounts/:id/photo')
  @HttpCode(204)
  @ApiNoContentResponse()
  removePhoto(@Param('id') id: string): Promise<void> {
    return this.assets.removePhoto(id);
  }

  @ApiOperation({ summary: "Save the account's logo and its placement" })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Put('accounts/:id/logo')
  @HttpCode(204)
  @ApiNoContentResponse()
  saveLogo(@Param('id') id: string, @Body(...body()) dto: SaveLogoDto): Promise<void> {
    return this.assets.saveLogo(id, dto);
  }

  @ApiOperation({ summary: "Remove the account's saved logo" })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Delete('accounts/:id/logo')
  @HttpCode(204)
  @ApiNoContentResponse()
  removeLogo(@Param('id') id: string): Promise<void> {
    return this.assets.removeLogo(id);
  }

  @ApiOperation({ summary: 'Save a set of style reference images' })
  @ApiResponse({ status: 400, type: ErrorDto })
  @ApiResponse({ status: 403, type: ErrorDto })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Post('accounts/:id/reference-sets')
  @ApiCreatedResponse({ type: ReferenceSetDto })
  createReferenceSet(
    @Param('id') id: string,
    @Body(...body()) dto: CreateReferenceSetDto,
  ): Promise<ReferenceSetDto> {
    return this.assets.createReferenceSet(id, dto);
  }

  @ApiOperation({ summary: 'Remove a saved reference set' })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Delete('accounts/:id/reference-sets/:refId')
  @HttpCode(204)
  @ApiNoContentResponse()
  removeReferenceSet(@Param('id') id: string, @Param('refId') refId: string): Promise<void> {
    return this.assets.removeReferenceSet(id, refId);
  }

  @ApiOperation({ summary: "List the account's credit ledger" })
  @ApiResponse({ status: 404, type: ErrorDto })
  @Get('accounts/:id/ledger')
  @ApiOkResponse({ type: [LedgerEntryDto] })
  ledger(@Param('id') id: string): Promise<LedgerEntryDto[]> {
    return this.accounts.ledger(id);
  }

  /** Streams NDJSON: `{"done":n,"total":m}` lines, then the report as `{"report":{…}}`. */
  @ApiOperation({ summary: 'Replay the event log into fresh projections and compare them' })
  @Post('rebuild')
  @HttpCode(200)
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'NDJSON: `{"done":n,"total":m}` progress lines, then `{"report":{…}}`.' })
  async runRebuild(@Res() res: Response): Promise<void> {
    res.status(200).setHeader('Content-Type', 'application/x-ndjson');
    const report = await this.rebuild.execute((progress) => res.write(`${JSON.stringify(progress)}\n`));
    res.end(`${JSON.stringify({ report })}\n`);
  }
}
