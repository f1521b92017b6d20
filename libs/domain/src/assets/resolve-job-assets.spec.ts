import { describe, expect, it } from 'vitest';
import { PLANS, type JobAssetsRequestedV1, type LogoPlacement, type Plan } from '@thumbforge/contracts';
import {
  needsSavedAssets,
  NO_SAVED_ASSETS,
  REJECTIONS,
  resolveJobAssets,
  type AvailableAssets,
  type Resolution,
} from './resolve-job-assets.js';

const SAVED_PHOTO = 'assets/acc/photo/upl_saved';
const INLINE_PHOTO = 'uploads/acc/job/photo';
const SAVED_LOGO: LogoPlacement = {
  key: 'assets/acc/logo/upl_saved',
  position: 'top-left',
  size: 0.3,
  dropShadow: true,
};
const INLINE_LOGO = 'uploads/acc/job/logo';
const SET = {
  setId: 'ref_1',
  format: 'instagram' as const,
  imageKeys: ['assets/acc/references/ref_1/a', 'assets/acc/references/ref_1/b'],
};

function request(overrides: Partial<JobAssetsRequestedV1>): JobAssetsRequestedV1 {
  return {
    jobId: 'job_1',
    accountId: 'acc_1',
    plan: 'pro',
    requestedFormat: 'youtube',
    usePhoto: false,
    useLogo: false,
    customAssetsId: null,
    inlinePhotoKey: null,
    inlineLogoKey: null,
    ...overrides,
  };
}

const nothingSaved: AvailableAssets = { photoKey: null, logo: null, referenceSet: null };
const everythingSaved: AvailableAssets = { photoKey: SAVED_PHOTO, logo: SAVED_LOGO, referenceSet: SET };

describe('resolveJobAssets: each rule', () => {
  it.each<[string, Partial<JobAssetsRequestedV1>, AvailableAssets, Resolution]>([
    [
      'no assets asked for',
      { plan: 'free' },
      nothingSaved,
      { ok: true, assets: { format: 'youtube', photoKey: null, logo: null, references: null } },
    ],
    [
      'unknown customAssetsId → 404',
      { customAssetsId: 'ref_unknown' },
      nothingSaved,
      { ok: false, reason: REJECTIONS.referenceSetNotFound },
    ],
    [
      'unknown customAssetsId → 404 even on a plan without reference sets',
      { plan: 'free', customAssetsId: 'ref_unknown' },
      nothingSaved,
      { ok: false, reason: REJECTIONS.referenceSetNotFound },
    ],
    [
      'a saved reference set on creator → 403',
      { plan: 'creator', customAssetsId: 'ref_1' },
      everythingSaved,
      { ok: false, reason: REJECTIONS.referenceSetsNotInPlan },
    ],
    [
      'the reference set check comes before a missing photo',
      { plan: 'free', customAssetsId: 'ref_1', usePhoto: true },
      { ...nothingSaved, referenceSet: SET },
      { ok: false, reason: REJECTIONS.referenceSetsNotInPlan },
    ],
    [
      'usePhoto with no photo at all → 400',
      { usePhoto: true },
      nothingSaved,
      { ok: false, reason: REJECTIONS.photoRequired },
    ],
    [
      'useLogo with no logo at all → 400',
      { useLogo: true },
      nothingSaved,
      { ok: false, reason: REJECTIONS.logoRequired },
    ],
    [
      'a missing photo is reported before a missing logo',
      { usePhoto: true, useLogo: true },
      nothingSaved,
      { ok: false, reason: REJECTIONS.photoRequired },
    ],
    [
      'a missing photo on free is a 400, not a 403',
      { plan: 'free', usePhoto: true },
      nothingSaved,
      { ok: false, reason: REJECTIONS.photoRequired },
    ],
    [
      'a missing logo comes before a saved photo on free',
      { plan: 'free', usePhoto: true, useLogo: true },
      { ...nothingSaved, photoKey: SAVED_PHOTO },
      { ok: false, reason: REJECTIONS.logoRequired },
    ],
    [
      'the saved photo on free → 403',
      { plan: 'free', usePhoto: true },
      everythingSaved,
      { ok: false, reason: REJECTIONS.savedAssetsNotInPlan },
    ],
    [
      'the saved logo on creator → 403',
      { plan: 'creator', useLogo: true },
      everythingSaved,
      { ok: false, reason: REJECTIONS.savedAssetsNotInPlan },
    ],
    [
      'inline photo and logo on free',
      {
        plan: 'free',
        usePhoto: true,
        useLogo: true,
        inlinePhotoKey: INLINE_PHOTO,
        inlineLogoKey: INLINE_LOGO,
      },
      nothingSaved,
      {
        ok: true,
        assets: {
          format: 'youtube',
          photoKey: INLINE_PHOTO,
          logo: { key: INLINE_LOGO, position: 'bottom-right', size: 0.15, dropShadow: false },
          references: null,
        },
      },
    ],
    [
      'inline images win over saved ones',
      { usePhoto: true, useLogo: true, inlinePhotoKey: INLINE_PHOTO, inlineLogoKey: INLINE_LOGO },
      everythingSaved,
      {
        ok: true,
        assets: {
          format: 'youtube',
          photoKey: INLINE_PHOTO,
          logo: { key: INLINE_LOGO, position: 'bottom-right', size: 0.15, dropShadow: false },
          references: null,
        },
      },
    ],
    [
      'saved photo, saved logo with its placement, and the set’s stored format on pro',
      { usePhoto: true, useLogo: true, customAssetsId: 'ref_1', requestedFormat: 'x' },
      everythingSaved,
      {
        ok: true,
        assets: {
          format: 'instagram',
          photoKey: SAVED_PHOTO,
          logo: SAVED_LOGO,
          references: { setId: 'ref_1', imageKeys: SET.imageKeys },
        },
      },
    ],
    [
      'a set supplies the format when none was requested',
      { plan: 'business', customAssetsId: 'ref_1', requestedFormat: null },
      everythingSaved,
      {
        ok: true,
        assets: {
          format: 'instagram',
          photoKey: null,
          logo: null,
          references: { setId: 'ref_1', imageKeys: SET.imageKeys },
        },
      },
    ],
    [
      'saved assets are not used when not asked for',
      { plan: 'free' },
      everythingSaved,
      { ok: true, assets: { format: 'youtube', photoKey: null, logo: null, references: null } },
    ],
    [
      'inline images sent without their flag are not used',
      { inlinePhotoKey: INLINE_PHOTO, inlineLogoKey: INLINE_LOGO },
      nothingSaved,
      { ok: true, assets: { format: 'youtube', photoKey: null, logo: null, references: null } },
    ],
    [
      'no format and no set → 400',
      { requestedFormat: null },
      nothingSaved,
      { ok: false, reason: REJECTIONS.formatRequired },
    ],
  ])('%s', (_name, overrides, available, expected) => {
    expect(resolveJobAssets(request(overrides), available)).toEqual(expected);
  });

  it('the rejections carry the documented status, code and message', () => {
    expect(REJECTIONS).toMatchObject({
      referenceSetNotFound: {
        status: 404,
        code: 'REFERENCE_SET_NOT_FOUND',
        error: 'customAssetsId not found',
      },
      referenceSetsNotInPlan: {
        status: 403,
        code: 'FEATURE_NOT_IN_PLAN',
        error: 'Reference sets require the Pro or Business plan',
      },
      photoRequired: {
        status: 400,
        code: 'PHOTO_REQUIRED',
        error: 'usePhoto is true but no saved photo or photoImage was provided',
      },
      logoRequired: {
        status: 400,
        code: 'LOGO_REQUIRED',
        error: 'useLogo is true but no saved logo or logoImage was provided',
      },
      savedAssetsNotInPlan: {
        status: 403,
        code: 'FEATURE_NOT_IN_PLAN',
        error: 'Saved photos and logos require the Pro or Business plan',
      },
    });
  });

  it('returns copies: the resolved references do not alias the saved set', () => {
    const result = resolveJobAssets(request({ customAssetsId: 'ref_1' }), everythingSaved);
    expect(result.ok && result.assets.references!.imageKeys).not.toBe(SET.imageKeys);
  });
});

/** Where an image can come from: nothing, saved only, inline only, or both. */
type Source = 'none' | 'saved' | 'inline' | 'both';
type SetCase = 'none' | 'known' | 'unknown';

const SOURCES: Source[] = ['none', 'saved', 'inline', 'both'];
const SETS: SetCase[] = ['none', 'known', 'unknown'];
const hasSaved = (s: Source) => s === 'saved' || s === 'both';
const hasInline = (s: Source) => s === 'inline' || s === 'both';
const paidPlan = (plan: Plan) => plan === 'pro' || plan === 'business';

/** The rules of DESIGN §4 step 5, stated as the product table reads, to check every combination against. */
function expectedOutcome(
  plan: Plan,
  usePhoto: boolean,
  photo: Source,
  useLogo: boolean,
  logo: Source,
  set: SetCase,
): string {
  if (set === 'unknown') return 'REFERENCE_SET_NOT_FOUND';
  if (set === 'known' && !paidPlan(plan)) return 'FEATURE_NOT_IN_PLAN:references';
  if (usePhoto && photo === 'none') return 'PHOTO_REQUIRED';
  if (useLogo && logo === 'none') return 'LOGO_REQUIRED';
  if (!paidPlan(plan) && ((usePhoto && photo === 'saved') || (useLogo && logo === 'saved'))) {
    return 'FEATURE_NOT_IN_PLAN:saved';
  }
  const photoKey = !usePhoto ? 'none' : hasInline(photo) ? 'inline' : 'saved';
  const logoKey = !useLogo ? 'none' : hasInline(logo) ? 'inline' : 'saved';
  return `ok photo=${photoKey} logo=${logoKey} set=${set === 'known' ? 'yes' : 'no'}`;
}

function outcome(result: Resolution): string {
  if (!result.ok) {
    const suffix =
      result.reason.code === 'FEATURE_NOT_IN_PLAN'
        ? result.reason.error.startsWith('Reference')
          ? ':references'
          : ':saved'
        : '';
    return `${result.reason.code}${suffix}`;
  }
  const { photoKey, logo, references, format } = result.assets;
  const photo =
    photoKey === null
      ? 'none'
      : photoKey === INLINE_PHOTO
        ? 'inline'
        : photoKey === SAVED_PHOTO
          ? 'saved'
          : '?';
  const logoSource =
    logo === null
      ? 'none'
      : logo.key === INLINE_LOGO && logo.position === 'bottom-right' && logo.size === 0.15 && !logo.dropShadow
        ? 'inline'
        : logo.key === SAVED_LOGO.key && logo.position === SAVED_LOGO.position && logo.dropShadow
          ? 'saved'
          : '?';
  const expectedFormat = references ? SET.format : 'youtube';
  if (format !== expectedFormat) return `wrong format ${format}`;
  return `ok photo=${photo} logo=${logoSource} set=${references ? 'yes' : 'no'}`;
}

const matrix = PLANS.flatMap((plan) =>
  [false, true].flatMap((usePhoto) =>
    SOURCES.flatMap((photo) =>
      [false, true].flatMap((useLogo) =>
        SOURCES.flatMap((logo) => SETS.map((set) => [plan, usePhoto, photo, useLogo, logo, set] as const)),
      ),
    ),
  ),
);

describe('resolveJobAssets: every combination of plan × usePhoto × useLogo × customAssetsId × saved/inline', () => {
  it(`covers ${matrix.length} combinations`, () => {
    expect(matrix).toHaveLength(4 * 2 * 4 * 2 * 4 * 3);
  });

  it.each(matrix)(
    '%s usePhoto=%s (%s) useLogo=%s (%s) set=%s',
    (plan, usePhoto, photo, useLogo, logo, set) => {
      const result = resolveJobAssets(
        request({
          plan,
          usePhoto,
          useLogo,
          customAssetsId: set === 'none' ? null : set === 'known' ? 'ref_1' : 'ref_unknown',
          inlinePhotoKey: hasInline(photo) ? INLINE_PHOTO : null,
          inlineLogoKey: hasInline(logo) ? INLINE_LOGO : null,
        }),
        {
          photoKey: hasSaved(photo) ? SAVED_PHOTO : null,
          logo: hasSaved(logo) ? SAVED_LOGO : null,
          referenceSet: set === 'known' ? SET : null,
        },
      );
      expect(outcome(result)).toBe(expectedOutcome(plan, usePhoto, photo, useLogo, logo, set));
    },
  );
});

describe('needsSavedAssets: when the gateway may resolve without the asset service', () => {
  it.each<[string, Partial<JobAssetsRequestedV1>, boolean]>([
    ['nothing asked for', {}, false],
    ['an inline photo', { usePhoto: true, inlinePhotoKey: INLINE_PHOTO }, false],
    ['an inline logo', { useLogo: true, inlineLogoKey: INLINE_LOGO }, false],
    [
      'inline photo and logo on free',
      {
        plan: 'free',
        usePhoto: true,
        useLogo: true,
        inlinePhotoKey: INLINE_PHOTO,
        inlineLogoKey: INLINE_LOGO,
      },
      false,
    ],
    ['an inline photo sent without usePhoto', { inlinePhotoKey: INLINE_PHOTO }, false],
    ['the saved photo', { usePhoto: true }, true],
    ['the saved logo', { useLogo: true }, true],
    [
      'the saved logo beside an inline photo',
      { usePhoto: true, useLogo: true, inlinePhotoKey: INLINE_PHOTO },
      true,
    ],
    ['a reference set', { customAssetsId: 'ref_1' }, true],
    ['no format and no reference set', { requestedFormat: null }, false],
  ])('%s → %s', (_, overrides, expected) => {
    expect(needsSavedAssets(request(overrides))).toBe(expected);
  });

  it('gives, without saved assets, the answer resolution gives whatever is saved', () => {
    const flags = [false, true];
    for (const plan of PLANS)
      for (const usePhoto of flags)
        for (const useLogo of flags)
          for (const inlinePhotoKey of [null, INLINE_PHOTO])
            for (const inlineLogoKey of [null, INLINE_LOGO])
              for (const requestedFormat of [null, 'youtube' as const]) {
                const asked = request({
                  plan,
                  usePhoto,
                  useLogo,
                  inlinePhotoKey,
                  inlineLogoKey,
                  requestedFormat,
                });
                if (needsSavedAssets(asked)) continue;
                const local = resolveJobAssets(asked, NO_SAVED_ASSETS);
                for (const available of [
                  nothingSaved,
                  everythingSaved,
                  { ...nothingSaved, photoKey: SAVED_PHOTO },
                ])
                  expect(resolveJobAssets(asked, available)).toEqual(local);
              }
  });
});
