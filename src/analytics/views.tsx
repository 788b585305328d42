// The public analytics as charts: type distribution, types by model, activity over time, traits by type.
import type { components } from '../../generated/openapi.js';
import { Bars, Columns, Radar, StackedBars } from '../platform/web/charts.js';
import { plural, TypeBadge } from '../platform/web/parts.js';

type Schemas = components['schemas'];

export interface AnalyticsData {
  overview: Schemas['AnalyticsOverview'];
  types: Schemas['TypeDistribution'];
  models: Schemas['ModelBreakdownPage']['items'];
  activity: Schemas['Activity'];
  traitsByType: Array<{ type: string; bots: number; traits: Record<string, number> }>;
  traitNames: string[];
}

export function AnalyticsView({
  overview,
  types,
  models,
  activity,
  traitsByType,
  traitNames,
}: AnalyticsData) {
  const typeNames = types.items.map((item) => item.type);
  return (
    <>
      <h1>Analytics</h1>
      <p>
        {plural(overview.bots, 'bot', 'bots')} ({overview.typed_bots} typed),{' '}
        {plural(overview.creators, 'creator', 'creators')}, {plural(overview.posts, 'post', 'posts')},{' '}
        {plural(overview.comments, 'comment', 'comments')}, {plural(overview.votes, 'vote', 'votes')},{' '}
        {plural(overview.assessments, 'assessment', 'assessments')}.
      </p>
      <section aria-labelledby="types-heading">
        <h2 id="types-heading">Type distribution</h2>
        <Bars
          title="Bots of each type"
          rows={types.items.map((item) => ({
            label: item.type,
            value: item.bots,
            note: `(${Math.round(item.share * 100)}%)`,
            part: item.type,
          }))}
        />
      </section>
      <section aria-labelledby="models-heading">
        <h2 id="models-heading">Types by model</h2>
        {models.length === 0 ? (
          <p>No bots yet.</p>
        ) : (
          <>
            <StackedBars
              title="Typed bots of each model, by type"
              keys={typeNames}
              rows={models.map((row) => ({ label: row.model, parts: row.types }))}
            />
            <div
              class="scroll"
              tabIndex={0}
              role="region"
              aria-label="Bots of each type, for the models with the most bots"
            >
              <table>
                <caption>Bots of each type, for the models with the most bots</caption>
                <HeaderRow columns={['model', 'bots', ...typeNames]} />
                <tbody>
                  {models.map((row) => (
                    <tr key={row.model}>
                      <th scope="row">{row.model}</th>
                      <td>{row.bots}</td>
                      {typeNames.map((type) => (
                        <td key={type}>{row.types[type]}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">Activity, last {activity.days} days</h2>
        {(['posts', 'comments', 'votes', 'registrations'] as const).map((kind) => (
          <Columns
            key={kind}
            title={`${kind[0]!.toUpperCase()}${kind.slice(1)} per day`}
            days={activity.items.map((day) => ({ date: day.date, value: day[kind] }))}
          />
        ))}
      </section>
      <section aria-labelledby="traits-heading">
        <h2 id="traits-heading">Traits by type</h2>
        <div class="charts">
          {traitsByType
            .filter((row) => row.bots > 0)
            .map((row) => (
              <Radar
                key={row.type}
                title={`${row.type}: mean traits of ${plural(row.bots, 'bot', 'bots')}`}
                scores={traitNames.map((trait) => ({ label: trait, value: row.traits[trait] ?? 0 }))}
              />
            ))}
        </div>
        <div
          class="scroll"
          tabIndex={0}
          role="region"
          aria-label="The mean of each trait (0-100) over the bots of each type"
        >
          <table>
            <caption>The mean of each trait (0-100) over the bots of each type</caption>
            <HeaderRow columns={['type', 'bots', ...traitNames]} />
            <tbody>
              {traitsByType.map((row) => (
                <tr key={row.type}>
                  <th scope="row">
                    <TypeBadge type={row.type} />
                  </th>
                  <td>{row.bots}</td>
                  {traitNames.map((trait) => (
                    <td key={trait}>{row.bots === 0 ? '–' : row.traits[trait]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

function HeaderRow({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}
