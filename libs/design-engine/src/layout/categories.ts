import type { Category } from '@thumbforge/contracts';
import { CONCRETE_CATEGORIES, type ConcreteCategory } from './styles.js';

/** FNV-1a over the UTF-16 code units: a stable, well-spread hash of a title. */
export function hashTitle(title: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < title.length; i++) {
    hash ^= title.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Words (and stems) that point to a category; several languages for the commonest. */
const KEYWORDS: Record<ConcreteCategory, string[]> = {
  'tech-saas': (
    'ai chatgpt gpt llm app apps software saas startup code coding coder programming developer javascript ' +
    'typescript python rust react api cloud server tech iphone android laptop pc gpu chip cpu robot robots ' +
    'automation gadget gadgets review unboxing linux windows macbook computer data cyber hacker tool tools ' +
    'claude openai web website internet'
  ).split(' '),
  'business-finance': (
    'money invest investing investment stock stocks market crypto bitcoin business income profit passive ' +
    'salary rich wealth finance financial bank budget debt tax taxes economy entrepreneur sales marketing ' +
    '$ € £ dollar dollars million millionaire billionaire revenue dividend retire retirement side hustle ' +
    'dinero negocio geld'
  ).split(' '),
  'education-tutorial': (
    'learn learning how tutorial guide course lesson lessons explained explain beginner beginners study ' +
    'studying school university exam math science history tips step steps basics master understand ' +
    'teach teacher student students class english grammar language aprender tutorial lernen'
  ).split(' '),
  'fitness-wellness': (
    'workout workouts gym fitness abs muscle muscles fat weight loss lose cardio run running marathon yoga ' +
    'pilates stretch stretching training train squat squats pushups protein bulk shred wellness ' +
    'meditation mindfulness body strength exercise sport'
  ).split(' '),
  'medical-healthcare': (
    'doctor doctors health healthy medical medicine symptoms symptom disease heart brain cancer diabetes ' +
    'sleep nurse hospital pain blood vitamin vitamins therapy mental anxiety depression surgery treatment ' +
    'virus immune gut skin dentist teeth salud'
  ).split(' '),
  'lifestyle-vlog': (
    'vlog day life routine morning night home house apartment room makeover outfit fashion style skincare ' +
    'beauty makeup family wedding baby mom dad couple relationship dating minimalist aesthetic decor ' +
    'shopping haul week weekend'
  ).split(' '),
  'food-cooking': (
    'recipe recipes cook cooking food eat eating pizza burger chicken steak pasta bake baking cake bread ' +
    'kitchen chef meal meals dinner breakfast lunch dessert vegan spicy taste tasting restaurant street ' +
    'sushi ramen coffee cocktail bbq grill receta cocina'
  ).split(' '),
  travel: (
    'travel traveling trip trips visit visiting country countries city cities flight flights hotel hotels ' +
    'beach island islands japan tokyo paris italy europe asia mountain mountains road backpacking tour ' +
    'vacation holiday abroad passport airport cruise hiking camping adventure explore viaje reise'
  ).split(' '),
  gaming: (
    'game games gaming gamer minecraft fortnite roblox gta valorant zelda mario pokemon elden ring boss ' +
    'speedrun playthrough walkthrough level levels noob pro ranked esports console playstation ps5 xbox ' +
    'nintendo switch steam fps rpg mod mods build survival hardcore'
  ).split(' '),
  'entertainment-comedy': (
    'funny prank pranks challenge challenges reaction reacting react comedy meme memes laugh try ' +
    'hilarious fails fail celebrity movie movies trailer show tv series episode music song songs dance ' +
    'vs 24 hours last wins'
  ).split(' '),
  'news-commentary': (
    'news breaking election elections war president government politics political policy law court ' +
    'report update crisis scandal protest economy inflation climate analysis opinion truth exposed ' +
    'investigation debate vote leaders world'
  ).split(' '),
  'creative-design': (
    'design designer art artist drawing draw paint painting illustration photoshop figma logo logos ' +
    'branding typography font fonts photography photo camera color colour creative animation 3d blender ' +
    'sketch portfolio ui ux poster'
  ).split(' '),
};

const KEYWORD_INDEX = new Map<string, ConcreteCategory[]>();
for (const [category, words] of Object.entries(KEYWORDS) as Array<[ConcreteCategory, string[]]>) {
  for (const word of words) KEYWORD_INDEX.set(word, [...(KEYWORD_INDEX.get(word) ?? []), category]);
}

/**
 * `auto` infers the category from the title's words (each keyword votes, a currency sign counts as
 * finance); a title with no clue falls back to a hash of the title, so it always gets the same one.
 */
export function resolveCategory(category: Category, title: string): ConcreteCategory {
  if (category !== 'auto') return category;
  const votes = new Map<ConcreteCategory, number>();
  const words = title.toLowerCase().match(/[\p{L}\p{N}]+|[$€£]/gu) ?? [];
  for (const word of words) {
    for (const c of KEYWORD_INDEX.get(word) ?? []) votes.set(c, (votes.get(c) ?? 0) + 1);
  }
  let best: ConcreteCategory | null = null;
  for (const c of CONCRETE_CATEGORIES) {
    const v = votes.get(c) ?? 0;
    if (v > 0 && (best === null || v > votes.get(best)!)) best = c;
  }
  return best ?? CONCRETE_CATEGORIES[hashTitle(title) % CONCRETE_CATEGORIES.length]!;
}
