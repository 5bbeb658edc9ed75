/** A matched route's params, apart so that the pages reading them need not import the route table. */

/** The parts of a page's path, by name (`:a` in a pattern becomes `params.a`). */
export type Params = Readonly<Record<string, string>>;
