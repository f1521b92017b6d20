import {
  ERROR_CODES,
  PLAN_TERMS,
  type JobAssetsRequestedV1,
  type LogoPlacement,
  type Rejection,
  type ResolvedAssets,
} from '@thumbforge/contracts';

/** What the account has saved that the request may use. */
export interface AvailableAssets {
  photoKey: string | null;
  logo: LogoPlacement | null;
  /** The set named by customAssetsId, if it exists for the account and was not removed. */
  referenceSet: { setId: string; format: ResolvedAssets['format']; imageKeys: string[] } | null;
}

export type Resolution = { ok: true; assets: ResolvedAssets } | { ok: false; reason: Rejection };

/** An inline logo is placed like a freshly saved one would be. */
export const INLINE_LOGO_DEFAULTS = { position: 'bottom-right', size: 0.15, dropShadow: false } as const;

export const REJECTIONS = {
  referenceSetNotFound: {
    status: 404,
    code: ERROR_CODES.REFERENCE_SET_NOT_FOUND,
    error: 'customAssetsId not found',
  },
  referenceSetsNotInPlan: {
    status: 403,
    code: ERROR_CODES.FEATURE_NOT_IN_PLAN,
    error: 'Reference sets require the Pro or Business plan',
  },
  photoRequired: {
    status: 400,
    code: ERROR_CODES.PHOTO_REQUIRED,
    error: 'usePhoto is true but no saved photo or photoImage was provided',
  },
  logoRequired: {
    status: 400,
    code: ERROR_CODES.LOGO_REQUIRED,
    error: 'useLogo is true but no saved logo or logoImage was provided',
  },
  savedAssetsNotInPlan: {
    status: 403,
    code: ERROR_CODES.FEATURE_NOT_IN_PLAN,
    error: 'Saved photos and logos require the Pro or Business plan',
  },
  formatRequired: { status: 400, code: ERROR_CODES.INVALID_REQUEST, error: 'format is required' },
} as const satisfies Record<string, Rejection>;

/** Nothing saved: what a request that uses no saved asset is resolved against. */
export const NO_SAVED_ASSETS: AvailableAssets = { photoKey: null, logo: null, referenceSet: null };

/**
 * Whether the answer depends on what the account has saved: a reference set, or a photo or logo flag
 * without its inline image. When it does not, `resolveJobAssets(request, NO_SAVED_ASSETS)` is the
 * answer the asset service would give, and the gateway decides without asking it.
 */
export function needsSavedAssets(
  request: Pick<
    JobAssetsRequestedV1,
    'customAssetsId' | 'usePhoto' | 'useLogo' | 'inlinePhotoKey' | 'inlineLogoKey'
  >,
): boolean {
  return (
    request.customAssetsId !== null ||
    (request.usePhoto && !request.inlinePhotoKey) ||
    (request.useLogo && !request.inlineLogoKey)
  );
}

/**
 * DESIGN §4 step 5, checks in this order: unknown reference set (404); reference sets not in the plan
 * (403); a photo or logo flag with neither inline nor saved image (400); a saved photo or logo on a plan
 * without saved assets (403). Inline images are allowed on every plan and win over saved ones.
 */
export function resolveJobAssets(request: JobAssetsRequestedV1, available: AvailableAssets): Resolution {
  const savedAssets = PLAN_TERMS[request.plan].savedAssets;
  const reject = (reason: Rejection): Resolution => ({ ok: false, reason });

  if (request.customAssetsId) {
    if (!available.referenceSet) return reject(REJECTIONS.referenceSetNotFound);
    if (!savedAssets) return reject(REJECTIONS.referenceSetsNotInPlan);
  }
  const usesSavedPhoto = request.usePhoto && !request.inlinePhotoKey;
  const usesSavedLogo = request.useLogo && !request.inlineLogoKey;
  if (usesSavedPhoto && !available.photoKey) return reject(REJECTIONS.photoRequired);
  if (usesSavedLogo && !available.logo) return reject(REJECTIONS.logoRequired);
  if ((usesSavedPhoto || usesSavedLogo) && !savedAssets) return reject(REJECTIONS.savedAssetsNotInPlan);

  const references = request.customAssetsId ? available.referenceSet : null;
  const format = references?.format ?? request.requestedFormat;
  // The gateway requires a format unless a reference set supplies one; this guards a malformed command.
  if (!format) return reject(REJECTIONS.formatRequired);

  return {
    ok: true,
    assets: {
      format,
      photoKey: request.usePhoto ? (request.inlinePhotoKey ?? available.photoKey) : null,
      logo: !request.useLogo
        ? null
        : request.inlineLogoKey
          ? { key: request.inlineLogoKey, ...INLINE_LOGO_DEFAULTS }
          : available.logo,
      references: references ? { setId: references.setId, imageKeys: [...references.imageKeys] } : null,
    },
  };
}
