// A fetch Response read whole into what the tests look at: status, headers, the text, and the
// parsed JSON when the text is JSON (undefined otherwise).

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** The text parsed as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: jsonOrUndefined(text) };
}
