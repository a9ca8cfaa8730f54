import type controllers from '../controllers';

type Controllers = { [C in keyof typeof controllers]: ReturnType<(typeof controllers)[C]> };

/**
 * A route's handler as Strapi names it, `<controller>.<action>`, derived from the controllers:
 * a renamed or removed action fails the build instead of a route at boot.
 */
export type Handler = {
  [C in keyof Controllers & string]: `${C}.${keyof Controllers[C] & string}`;
}[keyof Controllers & string];
