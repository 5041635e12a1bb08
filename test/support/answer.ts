// A fetch Response read whole into what the tests look at: status, headers, the text, and the
// parsed JSON when the text is JSON (undefined otherwise).

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
