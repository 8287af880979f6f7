// Head nouns that tell what a casual first-person statement is about: a pet, a relative,
// an event one attends, a place one visits, a group one joins. A phrase whose head is in
// none of these lists is left to a model rather than guessed at. General English only.

const words = (list: string): Set<string> => new Set(list.trim().split(/\s+/));

export const PET_SPECIES = words(`
  dog dogs puppy puppies pup pups cat cats kitten kittens kitty kitties turtle turtles tortoise tortoises
  hamster hamsters rabbit rabbits bunny bunnies bird birds parrot parrots fish goldfish horse horses pony
  ponies snake snakes lizard lizards gecko geckos ferret ferrets chinchilla guinea-pig guinea-pigs`);

export const KIN = words(`
  husband wife spouse partner boyfriend girlfriend fiance fiancee fiancé fiancée son sons daughter daughters
  kid kids child children baby babies mom mum mother dad father parents brother brothers sister sisters
  sibling siblings grandma grandmother grandpa grandfather grandparents grandson granddaughter grandkids
  grandchildren aunt uncle cousin cousins niece nephew nieces nephews stepson stepdaughter stepmom stepdad
  family fam`);

export const EVENT_HEADS = words(`
  event events concert concerts show shows festival festivals party parties conference conferences convention
  meeting meetings meetup meetups group class classes workshop workshops seminar lecture talk talks session
  sessions parade rally march game games match matches tournament tournaments fair fairs wedding weddings
  exhibition exhibit exhibits gala retreat camp ceremony fundraiser fundraisers marathon race races recital
  performance performances play musical opera ballet screening premiere reading readings service picnic
  bbq barbecue cookout potluck reunion gathering drive competition competitions tryout tryouts audition
  auditions protest protests vigil auction expo summit hackathon playdate sleepover tour tours trip trips
  vacation vacations holiday getaway cruise hike hikes interview interviews appointment`);

export const PLACE_HEADS = words(`
  beach park museum museums gallery zoo aquarium lake river mountains mountain forest woods city town village
  country island islands coast shore library theater theatre cinema restaurant cafe bar pub gym studio
  shelter hospital clinic school college university campus church temple mall market farm ranch garden
  gardens trail trails canyon valley desert countryside castle castles cathedral stadium arena resort spa
  hotel cabin lodge campsite campground bakery store shop bookstore vineyard winery waterfall falls`);

export const GROUP_HEADS = words(`
  club team group gym class league band choir orchestra community organization organisation society
  association network committee crew circle program programme course troupe union chapter`);

/** Words ending in -ing that are nouns, not activities ("I love spring"). */
export const NOT_GERUNDS = words(`
  thing things something nothing anything everything king ring spring string wing sing morning evening
  ceiling pudding wedding clothing darling sibling duckling meaning during bring swing sting sling`);
