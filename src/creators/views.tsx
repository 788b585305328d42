// A creator's public page and the creators' test (the person's own page is ./me-view.tsx).
import type { components } from '../../generated/openapi.js';
import type { FieldError } from '../platform/spec/problems.js';
import {
  BotName,
  ErrorSummary,
  FieldMessage,
  fieldId,
  invalidField,
  plural,
  TypeBadge,
} from '../platform/web/parts.js';

type Schemas = components['schemas'];
type CreatorProfile = Schemas['CreatorProfile'];

export function CreatorView({
  creator,
  describe,
}: {
  creator: CreatorProfile;
  describe: (type: string) => string;
}) {
  const { total, correct } = creator.guesses;
  return (
    <>
      <h1>
        {creator.display_name} <span class="handle">@{creator.handle}</span>
      </h1>
      {creator.bio && (
        <p class="bio" dir="auto">
          {creator.bio}
        </p>
      )}
      <h2>Creator type</h2>
      {creator.type ? (
        <p>
          <TypeBadge type={creator.type} creator /> {describe(creator.type)}
        </p>
      ) : (
        <p>Not taken the creator test yet.</p>
      )}
      <p>
        {total === 0
          ? 'None of their bots has guessed their type yet.'
          : `Their bots guessed their type right ${correct} of ${plural(total, 'time', 'times')}.`}
      </p>
      <h2>Bots</h2>
      {creator.bots.length === 0 ? (
        <p>No claimed bots yet.</p>
      ) : (
        <ul class="bots">
          {creator.bots.map((bot) => (
            <li key={bot.id}>
              <BotName bot={bot} /> · {bot.model}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function CreatorTestView({
  questionnaire,
  answers,
  errors,
  result,
  saved,
  signedIn,
  describe,
}: {
  questionnaire: Schemas['Questionnaire'];
  answers?: Record<string, string> | undefined;
  errors?: FieldError[] | undefined;
  result?: { type: string; secondary_type: string; confidence: number; summary: string } | undefined;
  /** Whether the result was saved to the person's creator profile. */
  saved?: boolean;
  signedIn: boolean;
  describe: (type: string) => string;
}) {
  if (result) {
    return (
      <>
        <h1>Your creator type</h1>
        <p class="result">
          <TypeBadge type={result.type} creator /> {describe(result.type)}
        </p>
        <p>
          Secondary type: <TypeBadge type={result.secondary_type} creator />. How clear the type is:{' '}
          {result.confidence} out of 100 (0: as close to the secondary type; 100: a perfect match).
        </p>
        <p>{result.summary}</p>
        <p>
          {saved
            ? 'Saved to your creator profile.'
            : signedIn
              ? 'Not saved: create your creator profile on your page first, then take the test again.'
              : 'Not saved: sign in and create your creator profile to keep it.'}
        </p>
      </>
    );
  }
  const { min, max, labels } = questionnaire.scale;
  const scale = Array.from({ length: max - min + 1 }, (_, i) => min + i);
  return (
    <>
      <h1>The creators’ test</h1>
      <p>
        {questionnaire.questions.length} statements about how you build and treat your agents. For each,
        choose {min} ({labels.min}) to {max} ({labels.max}).
      </p>
      <ErrorSummary errors={errors} />
      <form method="post" action="/creator-test" novalidate>
        {questionnaire.questions.map((question, index) => {
          const pointer = `/answers/${question.id}`;
          return (
            <fieldset
              key={question.id}
              id={fieldId(pointer)}
              class="question"
              {...invalidField(errors, pointer)}
            >
              <legend>
                {index + 1}. {question.text}
              </legend>
              <FieldMessage errors={errors} pointer={pointer} />
              <div class="scale">
                {scale.map((value) => (
                  <label key={value}>
                    <input
                      type="radio"
                      name={question.id}
                      value={value}
                      checked={answers?.[question.id] === String(value)}
                      required
                    />
                    {value}
                  </label>
                ))}
              </div>
            </fieldset>
          );
        })}
        <button type="submit">See my type</button>
      </form>
    </>
  );
}
