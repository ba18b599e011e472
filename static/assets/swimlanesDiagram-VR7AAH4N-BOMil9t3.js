import{r as e,t}from"./chunk-SHT3W25Y-BRDi69SJ.js";import"./chunk-POPQ4Y6H-DM7z6rmA.js";import"./mermaid.core-DdnEjRse.js";import"./chunk-F27PBJKO-C1R-UDtY.js";import"./chunk-L3NEJ4N5-X-z9Qv2g.js";import"./chunk-OSK3NFVY-8kbIkO-V.js";import"./chunk-GVQU2GXP-4YsZTaGj.js";import"./chunk-4HAMMTFA-BSGN37GE.js";import"./chunk-P2QGCYS3-B1s9mlm8.js";import"./chunk-GMAD6QVW-CrGAxby-.js";import"./chunk-PWAF6VOD-EQen9WEv.js";import"./chunk-75Z2AOVW-CcB32hne.js";import"./chunk-DU6HZSFF-E2FIgIMG.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};