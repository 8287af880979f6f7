// Vocabulary of conversation that carries no durable fact: greetings, thanks, reactions,
// stance words and grammar words. General English, not drawn from any data set.

const words = (list: string): Set<string> => new Set(list.trim().split(/\s+/));

/** Interjections and reply words; also never read as names when capitalised ("LOL", "OMG"). */
export const INTERJECTIONS = words(`
  hey hi hello hiya howdy yo heya wow whoa woah oh ohh ooh aw aww awww ah ahh aha haha hahaha hahahaha hehe heh
  lol lmao rofl omg omfg yay woohoo hooray yeah yea yeh yep yup yes ya yah no nope nah ok okay okey kk alright
  hmm hm um umm uh er well anyway anyways btw oops yikes ugh gosh geez jeez damn dang cheers thanks thank thx ty
  congrats congratulations bye goodbye byebye cya welcome please sorry indeed exactly absolutely definitely
  totally true right sure agreed cool nice sweet awesome great amen bravo hurray phew wooo whew`);

const EVALUATIVE = words(`
  good great nice cool awesome amazing wonderful fantastic fabulous incredible impressive lovely beautiful gorgeous
  cute adorable sweet fun funny hilarious exciting excited interesting inspiring inspired inspirational touching
  moving powerful special perfect brilliant excellent super superb outstanding remarkable terrific marvelous
  marvellous epic neat stunning breathtaking lucky proud glad happy thrilled delighted stoked pleased grateful
  thankful sorry sad tough hard scary crazy wild insane unbelievable true real important meaningful awful terrible
  horrible bad best better worse worst kind thoughtful generous sweet brave strong rad dope legit wholesome
  heartwarming uplifting fascinating cool beautiful helpful encouraging motivating rewarding fulfilling
  wonderfully amazingly incredibly awesomely glad hopeful positive talented gifted skilled fancy comfy cozy
  vivid bold gorgeous classy stylish elegant charming magnificent spectacular phenomenal mind-blowing
  blast hit winner surreal nerve-wracking bumpy`);

const ADVERBS = words(`
  so very really really totally truly absolutely definitely certainly surely indeed just still even also too
  quite pretty super rather kinda sorta somewhat especially seriously literally honestly actually simply
  always again ever yet already soon later sometime sometimes maybe perhaps probably certainly of course
  much more most less least enough all alot lot lots bit together here there now today back well`);

const VERBS = words(`
  be am is are was were been being do does did done doing have has had having get gets got gotten getting
  go goes went going gone see sees saw seen seeing hear hears heard hearing talk talks talked talking chat
  chats chatted chatting catch catching know knows knew known knowing think thinks thought thinking guess
  hope hopes hoped hoping wish wishes wished sound sounds sounded sounding look looks looked looking seem seems
  seemed feel feels felt feeling love loves loved loving like likes liked appreciate appreciated appreciates
  mean means meant agree agreed say says said saying tell tells told let lets make makes made keep keeps kept
  take takes took taking share sharing shared wait waiting miss missed bet imagine imagined believe care
  stay come came coming hang making laugh laughing laughed smile smiling cry crying thank thanked enjoy enjoyed
  enjoying happen happened happening hear rock rocks check glad need want wanted mind`);

const NOUNS = words(`
  thing things stuff time times news luck day pleasure problem problems worries worry deal word words support
  kindness encouragement advice help chat talk conversation friend buddy pal dude man girl guys guy
  everyone everybody anyone anybody someone somebody one ones way idea sense point feeling feelings vibe vibes
  moment moments experience while congrats thanks wishes heart something anything everything nothing`);

const FUNCTION = words(`
  i me myself we us ourselves you your yours yourself yourselves he him his she her hers they them their theirs
  it its itself this that these those there here what which who whom whose when where why how whatever
  a an the and or but nor so yet because if then than as while though although unless
  to of in on at by for with about from into onto over under up down out off through after before around like
  not no n't don't doesn't didn't can't couldn't won't wouldn't shouldn't isn't aren't wasn't weren't haven't
  hasn't hadn't can could will would shall should may might must
  i'm i've i'll i'd you're you've you'll you'd we're we've we'll we'd he's she's it's that's what's how's
  there's who's let's they're they've they'll where's when's why's
  any some every each both either neither none many few other another such same own
  gonna wanna gotta kinda sorta ya lemme gimme`);

const ALL = new Set([...INTERJECTIONS, ...EVALUATIVE, ...ADVERBS, ...VERBS, ...NOUNS, ...FUNCTION]);

/** Grammar words: pronouns, determiners, auxiliaries, prepositions, conjunctions. */
export function isFunctionWord(word: string): boolean {
  return FUNCTION.has(word.toLowerCase()) || VERBS.has(word.toLowerCase());
}

/** True when the word, in any case, is part of the phatic vocabulary ("sooo" is "so"). */
export function isPhaticWord(word: string): boolean {
  return [word.toLowerCase(), withoutPossessive(word), ...unstretched(word)].some((w) => ALL.has(w));
}

/** Chat stretches words for emphasis ("sooo", "coool"); runs of three or more letters read as one or two. */
export function unstretched(word: string): string[] {
  const lower = word.toLowerCase();
  if (!/(\p{L})\1\1/u.test(lower)) return [];
  return [lower.replace(/(\p{L})\1{2,}/gu, "$1"), lower.replace(/(\p{L})\1{2,}/gu, "$1$1")];
}

/** "life's" → "life", so possessives and "is"-contractions read as their noun. */
export function withoutPossessive(word: string): string {
  return word.toLowerCase().replace(/'s$/, "");
}

/** Ordinary English words that are not names or places ("Sorry", "Fine", "Home"). */
export function isCommonWord(word: string): boolean {
  const lower = word.toLowerCase();
  return ALL.has(lower) || EXTRA_COMMON.has(lower);
}

const EXTRA_COMMON = words(`
  fine ready done busy tired afraid off in on home work school myself thinking going trying working
  not sure back new old here there nothing something everything anything`);

/** Whole expressions that are phatic even though a word in them might not be ("good luck", "take care"). */
export const PHATIC_PHRASES: RegExp[] = [
  /\b(?:good|great|nice) (?:job|work|one|call|point|question|idea)\b/g,
  /\bwell done\b/g,
  /\b(?:good|great) (?:morning|afternoon|evening|night|day)\b/g,
  /\b(?:take care|stay safe|stay tuned|talk soon|chat soon|see you|see ya|catch you later|later|good luck|best of luck)\b/g,
  /\blong time no (?:see|talk|chat|speak)\b/g,
  /\b(?:what's up|whats up|sup|how are you|how are things|how have you been|how's it going|how you doing|how's everything|how is everything)\b/g,
  /\b(?:keep it up|keep going|you got this|you've got this|go for it|hang in there|never give up)\b/g,
  /\b(?:makes sense|no worries|no problem|my pleasure|of course|for sure|sure thing|fair enough|me too|same here|you too)\b/g,
  /\b(?:never mind|nevermind|my bad|oh my god|oh my|my god|my goodness|oh man|stop it|you're killing me|no way)\b/g,
  /\bnever have i ever\b/g,
  /\b(?:nice|good|great|lovely) (?:to|talking to|chatting with) (?:see|hear from|talk to|meet|chat with|hear)? ?you\b/g,
  /\b(?:means|meant) (?:a lot|so much|the world)\b/g,
  /\bthank you\b/g,
  /\b(?:keep|kept) (?:you|ya|u) (?:posted|updated|in the loop)\b/g,
  /\b(?:give up|giving up|gave up|rooting for you|cheer you on|cheering you on|have your back|got your back|proud of you|here for you|there for you)\b/g,
  /\b(?:since (?:we|i) (?:last )?(?:talked|spoke|chatted|caught up)|since then|since last time)\b/g,
  /\b(?:the best thing ever|can't beat (?:it|that)|all the way)\b/g,
  /\bcan't wait\b/g,
  // Managing the conversation itself: asking for news, thanking for advice, promising effort.
  /\blet me know(?: (?:how it (?:goes|went|turns out|turned out)|your thoughts|what you think|if you (?:need anything|try it|want)))?\b/g,
  /\bthanks? (?:you )?for (?:the|your|all the|all your) (?:recommendations?|reccomendations?|tips?|compliments?|advice|suggestions?|kind words|encouragement)\b/g,
  /\bsee (?:you|ya) (?:tomorrow|tonight|soon|then|later|next time)\b/g,
  /\b(?:do|doing|try|trying) my (?:best|hardest)\b|\bgive it my (?:all|best)\b/g,
  /\bkeep (?:pushing|plugging away|at it|trying)(?: forward| on)?\b/g,
];
