// Articles for the words a message fills in: the catalog's snake_case codes and retry words.

/**
 * "a" or "an" before `word`, by how the word begins to sound: "an" before a vowel letter ("an
 * after_delay code", "an ask_human code"), except where the vowel sounds as a consonant ("a once
 * code", "a unique_key code", "a user_blocked code").
 */
export function article(word: string): 'a' | 'an' {
  return /^[aeiou]/i.test(word) && !/^(?:once|one|uni|use|usu|eu)/i.test(word) ? 'an' : 'a';
}

/** `word` after its article: "an after_delay", "a fix_input". */
export const withArticle = (word: string): string => `${article(word)} ${word}`;
