import { describe, expect, it } from 'vitest';
import { ModelAnswerError, parseJsonAnswer } from './types.js';

describe("reading JSON out of a model's text answer", () => {
  it('reads the object inside a json fence', () => {
    expect(parseJsonAnswer('```JSON \n {"total": 12.5}\n\t```')).toEqual({ total: 12.5 });
    expect(parseJsonAnswer('```\n{"total": 1}\n```')).toEqual({ total: 1 });
    expect(parseJsonAnswer(' {"total": 2} ')).toEqual({ total: 2 });
  });

  it('refuses an opened fence followed by thousands of tabs in time linear in its length', () => {
    // The fence regex tried every split of the tabs between its two \s* and its lazy body:
    // 2,000 tabs took 9 s, 5,000 two minutes.
    const answer = '```\t' + '\t'.repeat(5000) + 'N';
    expect(() => parseJsonAnswer(answer)).toThrow(ModelAnswerError);
  });
});
