import type { Renderer } from '@thumbforge/design-engine';
import { median } from './bench.js';
import { benchJob, TITLES } from './fixtures.js';

/** The target: a title in any script renders in at most this many times the Latin row's time. */
export const MAX_OVER_LATIN = 1.2;

/**
 * Eight titles of similar length per script, one per round, as in the contender cases: each row draws
 * titles it has not just drawn, so shaping caches help no row more than the others.
 */
export const SCRIPT_TITLES: Readonly<Record<string, readonly string[]>> = {
  Latin: TITLES,
  Arabic: [
    'كيف تبدأ قناتك على يوتيوب في ٣٠ يومًا بدون خبرة',
    'جربت كل أدوات الذكاء الاصطناعي حتى لا تضطر أنت',
    'روتين الصباح الذي غير حياتي في عشر دقائق فقط',
    'لماذا لا يتحدث أحد عن هذه الحيلة البسيطة للميزانية',
    'بنينا منزلاً صغيراً في ٣٠ يوماً من الصفر تماماً',
    'اختبرنا أدوات المطبخ المنتشرة حتى لا تشتريها',
    'كيف تعلمت اليابانية في سنة واحدة بدون دروس',
    'خمسة أخطاء في التصميم يقع فيها الجميع (مجاناً)',
  ],
  Devanagari: [
    'मैंने हर एआई टूल आज़माया ताकि आपको न करना पड़े',
    'दस मिनट की सुबह की दिनचर्या जिसने मेरी ज़िंदगी बदल दी',
    'कोई इस आसान बजट ट्रिक के बारे में बात क्यों नहीं करता',
    'हमने 30 दिनों में शुरू से एक छोटा घर बनाया',
    'वायरल किचन गैजेट्स की जांच ताकि आप उन्हें छोड़ सकें',
    'बिना क्लास के एक साल में जापानी कैसे सीखी',
    'अब तक की सबसे कठिन बॉस लड़ाई, पूरी व्याख्या',
    'पांच डिज़ाइन गलतियाँ जो हर कोई पहले दिन करता है',
  ],
  Bengali: [
    'রান্নার সহজ রেসিপি: মাত্র ১০ মিনিটে তৈরি করুন',
    'আমি প্রতিটি এআই টুল চেষ্টা করেছি যাতে আপনাকে না হয়',
    'সকালের রুটিন যা আমার জীবন বদলে দিয়েছে চিরতরে',
    'কেউ এই সহজ বাজেট কৌশল নিয়ে কথা বলে না কেন',
    'আমরা ৩০ দিনে শূন্য থেকে একটি ছোট বাড়ি বানিয়েছি',
    'ভাইরাল রান্নাঘরের গ্যাজেট পরীক্ষা করে দেখলাম',
    'ক্লাস ছাড়াই এক বছরে জাপানি শিখলাম কীভাবে',
    'প্রথম দিনে সবাই যে পাঁচটি ডিজাইন ভুল করে',
  ],
  CJK: [
    '2026年最值得买的手机推荐：这五款不要错过',
    '我的第一次东京旅行花了多少钱？全部公开',
    '隠れた名店を巡る京都の旅【保存版】完全ガイド',
    'iPhoneで撮影するプロのコツ 5選を徹底解説',
    '초보자를 위한 한국 요리 레시피 10가지 모음',
    '臺灣夜市必吃美食：這10道你吃過嗎？',
    '一年で日本語を独学で身につけた方法を紹介',
    '하루 10분 아침 루틴이 내 인생을 바꿨다',
  ],
  'emoji-heavy': [
    'Family day 👨‍👩‍👧‍👦 with 🇯🇵 food 🍣 and 👍🏽 tips 🔥',
    'Top 3️⃣ hacks ✨ for ❤️ creators 🏳️‍🌈 this year 🚀',
    'We tried 🍕🍔🌮 every fast food 😱 so you don’t 💸',
    'Morning routine ☀️☕🧘‍♀️ that changed my life 💯',
    'Budget trick 💰📉 nobody talks about 🤫 (free) 🎁',
    'Tiny house 🏠🔨 built in 30 days 📆 from scratch 🪵',
    'Kitchen gadgets 🍳🔪 tested 🧪 so you can skip 🙅🏻‍♂️',
    'Hardest boss 👹⚔️ fight ever 🎮 explained 🧠',
  ],
};

export interface ScriptRow {
  script: string;
  medianMs: number;
  samples: number;
  /**
   * The median over rounds of this row's time over the Latin row's in the same round: a round's
   * renders run back to back, so load from other processes on the machine hits both sides alike.
   */
  overLatin: number;
  pass: boolean;
}

/** Script renders are cheap next to the contender cases: this many times their rounds, for stabler medians. */
const ROUNDS_PER_ITERATION = 3;

/**
 * Renders one title of every script per round (youtube sd webp, title only), rotating which script
 * goes first, and reports each script's median and its ratio to Latin: a title in another script
 * costs no more than 1.2 times a Latin one.
 */
export async function runScriptRows(
  renderer: Renderer,
  options: { iterations: number; warmup: number },
): Promise<ScriptRow[]> {
  const scripts = Object.keys(SCRIPT_TITLES);
  const samples = new Map<string, number[]>(scripts.map((s) => [s, []]));
  const job = benchJob({});
  // Warming up draws every title once, untimed: each row starts with its fonts loaded and the
  // backgrounds its titles pick already drawn, as in a service that has run a while; the rows then
  // differ only in what their script costs to lay out, shape and paint.
  if (options.warmup > 0) {
    for (const script of scripts) {
      for (const title of SCRIPT_TITLES[script]!) await renderer.render({ ...job, title }, {});
    }
  }
  const rounds = options.warmup + options.iterations * ROUNDS_PER_ITERATION;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < scripts.length; i++) {
      const script = scripts[(i + round) % scripts.length]!;
      const titles = SCRIPT_TITLES[script]!;
      const start = performance.now();
      await renderer.render({ ...job, title: titles[round % titles.length]! }, {});
      if (round >= options.warmup) samples.get(script)!.push(performance.now() - start);
    }
  }
  const latin = samples.get('Latin')!;
  return scripts.map((script) => {
    const ms = samples.get(script)!;
    const overLatin = median(ms.map((m, round) => m / latin[round]!));
    return { script, medianMs: median(ms), samples: ms.length, overLatin, pass: overLatin <= MAX_OVER_LATIN };
  });
}
