'use strict';

/** Seed guides (api::guide.guide): HTML bodies in `bodyHtml`, not localized. */

const guides = () => [
  {
    key: 'publishDataset',
    hero: 'datasetGuideHero',
    publish: true,
    data: {
      title: 'How to publish a dataset with a licence',
      slug: 'publish-a-dataset-with-a-licence',
      bodyHtml: `<p>A dataset is only reusable when a reader, human or machine, knows what each column means, in which unit it is measured and under which licence it may be used. This guide walks through publishing a CSV file so that it appears in the AI manifest as a <code>dataset</code> fragment.</p>
<h2>Before you start</h2>
<ul>
  <li>Export the data as UTF-8 CSV with a header row.</li>
  <li>Decide on a licence. Our open data uses <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>.</li>
  <li>Write one sentence about how the data was collected.</li>
</ul>
<h2>Describe every column</h2>
<p>Add one entry per column in the <strong>Columns</strong> list of the dataset component. The manifest copies the names and units, so an agent can check unit conversions.</p>
<table>
  <thead>
    <tr><th>Column</th><th>Unit</th><th>Type</th></tr>
  </thead>
  <tbody>
    <tr><td>month</td><td>ISO 8601 year-month</td><td>date</td></tr>
    <tr><td>requests</td><td>requests/month</td><td>integer</td></tr>
    <tr><td>median_time_to_index_h</td><td>h</td><td>number</td></tr>
  </tbody>
</table>
<p><img src="/uploads/publish-dataset-hero.png" alt="A spreadsheet with a licence badge and a column of units"></p>
<h2>Set the update cycle</h2>
<p>Use an ISO 8601 duration such as <code>P1M</code> for monthly updates. Crawlers use it, together with the stability score, to decide when to come back.</p>
<h2>Publish and check</h2>
<ol>
  <li>Publish the dataset entry.</li>
  <li>Wait for the next manifest rebuild, or start one from the sitemap-ai dashboard.</li>
  <li>Open <a href="/api/sitemap-ai/manifest?type=dataset">the dataset items of the manifest</a> and check the file checksum.</li>
</ol>`,
    },
  },
  {
    key: 'evidenceLinks',
    hero: 'evidenceGuideHero',
    publish: true,
    data: {
      title: 'How to add evidence links to an article',
      slug: 'add-evidence-links',
      bodyHtml: `<p>Evidence links tell an AI agent which primary sources back a section. They raise evidence coverage, one of the success metrics of the sitemap-AI proposal, and reduce hallucinated citations.</p>
<h2>Choose the right relation</h2>
<table>
  <thead>
    <tr><th>rel</th><th>Use it for</th><th>Example</th></tr>
  </thead>
  <tbody>
    <tr><td>standard</td><td>Specifications and protocols</td><td><a href="https://www.sitemaps.org/protocol.html">Sitemaps XML format</a></td></tr>
    <tr><td>dataset</td><td>The data behind a number</td><td><a href="/data/ai-crawler-requests-2025">AI crawler requests, 2025</a></td></tr>
    <tr><td>law</td><td>Legal texts</td><td><a href="https://eur-lex.europa.eu/eli/dir/2019/790/oj">Directive (EU) 2019/790</a></td></tr>
  </tbody>
</table>
<h2>Add the links in the editor</h2>
<ul>
  <li>Open the article in the Content Manager.</li>
  <li>In the <strong>Sitemap AI</strong> side panel, add the links to the entry, or to one fragment only.</li>
  <li>Write a short reason for the change, for example <em>Add primary source for the metrics table</em>.</li>
</ul>
<p><img src="/uploads/evidence-links-hero.png" alt="A paragraph with three footnote arrows pointing at a standard, a dataset and a paper" title="Evidence links point at primary sources"></p>
<h2>Check coverage</h2>
<p>The dashboard shows the share of fragments with at least one evidence link. Aim for at least 90 %.</p>`,
    },
  },
];

module.exports = { guides };
