// Added to the starter for Atoll's framework suite: an API route answering JSON per request.
import type { NextApiRequest, NextApiResponse } from "next";

export default function handler(_req: NextApiRequest, res: NextApiResponse) {
  res.status(200).json({ framework: "next15-pages", greeting: process.env.FW_GREETING ?? null });
}
