import type { Category } from '@thumbforge/contracts';

/**
 * Titles in every script the engine covers, as creators write them: mixed directions, numbers,
 * brackets, emoji sequences and long words. Each names the script it is there for. The engine's
 * tests render all of them, the gallery draws one per script.
 */
export interface ScriptSample {
  script: string;
  title: string;
  category: Category;
}

export const SCRIPT_SAMPLES: readonly ScriptSample[] = [
  { script: 'Latin', title: 'I Tried Every AI Thumbnail Tool (2026 Edition)', category: 'tech-saas' },
  { script: 'Latin', title: 'Read https://example.com/r before you buy', category: 'tech-saas' },
  {
    script: 'Latin',
    title: 'Donaudampfschifffahrtsgesellschaftskapitän erklärt',
    category: 'education-tutorial',
  },
  { script: 'Latin', title: 'Straße, Œuvre & Ça va — ¿Qué tal? ¡Olé!', category: 'lifestyle-vlog' },
  { script: 'Vietnamese', title: 'Hướng dẫn nấu phở bò ngon nhất Việt Nam', category: 'food-cooking' },
  { script: 'Turkish', title: 'İstanbul’da 3 gün: ılık bir şehir', category: 'travel' },
  { script: 'Greek', title: 'Ελληνική κουζίνα: 10 συνταγές για αρχάριους', category: 'tech-saas' },
  { script: 'Cyrillic', title: 'Как начать свой YouTube-канал за 30 дней', category: 'education-tutorial' },
  { script: 'Armenian', title: 'Հայկական խոհանոց՝ 5 հեշտ բաղադրատոմս', category: 'food-cooking' },
  { script: 'Georgian', title: 'საქართველოს მთები: ლაშქრობის გზამკვლევი', category: 'travel' },
  { script: 'Hebrew', title: 'מדריך: איך לחסוך 1,000 ₪ בחודש ב-2026', category: 'business-finance' },
  { script: 'Hebrew', title: 'למדו Python 3 בשבוע אחד (בחינם)', category: 'education-tutorial' },
  { script: 'Arabic', title: 'كيف تبدأ قناتك على يوتيوب في ٣٠ يومًا', category: 'education-tutorial' },
  { script: 'Arabic', title: 'دورة البرمجة (مجاناً) للمبتدئين', category: 'tech-saas' },
  { script: 'Arabic', title: 'أفضل 10 هواتف iPhone و Samsung لعام 2026', category: 'tech-saas' },
  { script: 'Persian', title: 'آموزش آشپزی ایرانی در ۳۰ دقیقه', category: 'food-cooking' },
  { script: 'Urdu', title: 'پاکستان کے ۵ خوبصورت مقامات', category: 'travel' },
  { script: 'Devanagari', title: 'घर पर बनाएं स्वादिष्ट पनीर टिक्का: सिर्फ़ 15 मिनट में', category: 'food-cooking' },
  { script: 'Bengali', title: 'রান্নার সহজ রেসিপি: মাত্র ১০ মিনিটে', category: 'food-cooking' },
  { script: 'Gurmukhi', title: 'ਪੰਜਾਬੀ ਖਾਣਾ: ਮੱਕੀ ਦੀ ਰੋਟੀ ਤੇ ਸਰ੍ਹੋਂ ਦਾ ਸਾਗ', category: 'food-cooking' },
  { script: 'Gujarati', title: 'ગુજરાતી થાળી: ૭ વાનગીઓ એક જ દિવસમાં', category: 'food-cooking' },
  { script: 'Oriya', title: 'ଓଡ଼ିଆ ରୋଷେଇ: ସହଜ ପଖାଳ ପ୍ରସ୍ତୁତି', category: 'food-cooking' },
  { script: 'Tamil', title: 'தமிழ் சமையல்: எளிய குறிப்புகள்', category: 'food-cooking' },
  { script: 'Telugu', title: 'తెలుగు వంటకాలు: 5 నిమిషాల్లో ఉప్మా', category: 'food-cooking' },
  { script: 'Kannada', title: 'ಕನ್ನಡ ಕಲಿಯಿರಿ: ೧೦೦ ಪದಗಳು', category: 'education-tutorial' },
  { script: 'Malayalam', title: 'കേരള സദ്യ: 26 വിഭവങ്ങൾ ഒരുക്കാം', category: 'food-cooking' },
  { script: 'Sinhala', title: 'ශ්‍රී ලංකා සංචාරය: දින 7ක ගමන', category: 'travel' },
  { script: 'Thai', title: 'เที่ยวญี่ปุ่นด้วยงบ 20,000 บาท ใน 7 วัน', category: 'travel' },
  { script: 'Lao', title: 'ທ່ອງທ່ຽວຫຼວງພະບາງ 3 ມື້', category: 'travel' },
  { script: 'Khmer', title: 'ដំណើរកម្សាន្តនៅអង្គរវត្ត ២ថ្ងៃ', category: 'travel' },
  { script: 'Myanmar', title: 'မြန်မာ့အစားအစာ ချက်ပြုတ်နည်း ၁၀ မျိုး', category: 'food-cooking' },
  { script: 'Ethiopic', title: 'የኢትዮጵያ ቡና ሥነ ሥርዓት፡ 3 ደረጃዎች', category: 'food-cooking' },
  { script: 'Simplified Chinese', title: '2026年最值得买的手机推荐', category: 'tech-saas' },
  { script: 'Simplified Chinese', title: '我的第一次东京旅行：花了多少钱？', category: 'travel' },
  { script: 'Traditional Chinese', title: '臺灣夜市必吃美食：這10道你吃過嗎？', category: 'food-cooking' },
  { script: 'Japanese', title: '隠れた名店を巡る京都の旅【保存版】', category: 'travel' },
  { script: 'Japanese', title: 'iPhoneで撮影するプロのコツ 5選', category: 'creative-design' },
  { script: 'Hangul', title: '초보자를 위한 한국 요리 레시피 10가지', category: 'food-cooking' },
  { script: 'Hangul', title: '걡곂 같은 드문 글자도 그리기', category: 'education-tutorial' },
  { script: 'Emoji', title: 'Family day out 👨‍👩‍👧‍👦 with 🇯🇵 food 🍣 and 👍🏽 tips', category: 'lifestyle-vlog' },
  { script: 'Emoji', title: 'Top 3️⃣ hacks ✨ for ❤️ #buildinpublic 🏳️‍🌈', category: 'entertainment-comedy' },
  {
    script: 'Mixed',
    title: 'Learn العربية and עברית with @thumbforge in 2026!',
    category: 'education-tutorial',
  },
  { script: 'Mixed', title: 'مقارنة: Galaxy S26 Ultra مقابل iPhone 17 Pro', category: 'tech-saas' },
  { script: 'Mixed', title: 'Tokyo 東京 vs Seoul 서울 vs Bangkok กรุงเทพ', category: 'travel' },
];
