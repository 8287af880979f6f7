// Abstract vocabulary of encouragement, values and feelings ("making a difference is key",
// "your courage is inspiring", "cherish the moments"). A sentence built only from these
// and phatic words states no fact about a particular person, thing or event. Concrete
// nouns (family, kids, studio, painting), names, numbers and dates are deliberately absent.

const words = (list: string): Set<string> => new Set(list.trim().split(/\s+/));

const NOUNS = words(`
  difference differences impact journey journeys dream dreams passion passions progress goal goals peace joy joys
  positivity courage strength strengths acceptance beauty success successes happiness kindness compassion resilience
  determination dedication motivation inspiration growth creativity connection connections hope hopes love effort
  efforts energy power pride trust balance wellbeing well-being patience perseverance confidence gratitude faith purpose
  meaning value values potential challenge challenges lesson lessons memory memories future self others people
  world life lives life's folks individuals relationship relationships friendship friendships bond bonds togetherness
  understanding empathy optimism attitude mindset outlook spirit soul mind heart hearts comfort change changes
  step steps path paths chance chances opportunity opportunities reminder reminders reason reasons ups downs
  key part parts matter matters place places bunch ton tons kind sort type types whole rest same
  beginning end side sides highlight highlights blessing blessings gift gifts boost vibe energy light warmth
  adventure adventures achievement achievements accomplishment milestone milestones inspiration emotions emotion
  thoughts thought happiness fun passion positivity encouragement strength effect difference self selves
  talent talents skill skills guts`);

const VERBS = words(`
  help helps helped helping bring brings brought bringing give gives gave given giving find finds finding
  reach reaching push pushes pushing pushed grow grows growing learn learns learning create creates creating
  chase chasing remind reminds reminded reminding cherish cherishing matter matters mattered spread spreading
  connect connecting connected stay stays staying inspire inspires inspiring motivate motivates motivating
  encourage encourages encouraging achieve achieving succeed succeeding overcome overcoming embrace embracing
  express expressing appreciate appreciating celebrate celebrating supporting supports supported follow following
  pursue pursuing accomplish strive striving thrive thriving deserve deserves keep keeps keeping lift lifting
  believe believing trust remember remembering focus focusing handle handling deal dealing face facing
  manage managing believe show shows showing shown become becomes becoming put puts turn turns
  take taking makes making made try tries trying tried continue continuing build building spend spending
  fill fills brighten brightens boost boosts matter carry carrying forward ahead along`);

const ADJECTIVES = words(`
  motivated determined dedicated focused positive optimistic resilient supportive rewarding fulfilling worth
  worthwhile key vital essential crucial huge big small little easy simple full different unique possible
  necessary valuable priceless precious incredible awesome caring loving kind compassionate understanding
  strong inspiring encouraging healthy safe whole real genuine deep true free open honest grateful hopeful
  long short tough challenging difficult hard rough best better nicer greater amazing cool calm calming
  peaceful relaxing soothing therapeutic meaningful powerful special magical memorable unforgettable
  enjoyable fun exciting thrilling important amazing good great nice lovely perfect wonderful each other
  every together alone apart away close closer right able ready willing open-minded brave`);

const ALL = new Set([...NOUNS, ...VERBS, ...ADJECTIVES]);

export function isAbstractWord(word: string): boolean {
  return ALL.has(word.toLowerCase()) || ALL.has(word.toLowerCase().replace(/'s$/, ""));
}

/** Words that only shape a question ("any favourite ones?", "what kind?"). */
const QUESTION_WORDS = words(`
  favorite favourite favorites favourites kind kinda sort type specific particular recommend recommendation
  recommendations suggestion suggestions tips tip ideas plans plan anything something else lately recently
  usually often ever new up`);

export function isQuestionWord(word: string): boolean {
  return QUESTION_WORDS.has(word.toLowerCase());
}
