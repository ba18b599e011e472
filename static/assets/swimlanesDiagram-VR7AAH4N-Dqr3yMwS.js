import{r as e,t}from"./chunk-SHT3W25Y-DCLiH4a8.js";import"./chunk-POPQ4Y6H-DmLZR7v0.js";import"./mermaid.core-LmODEpWK.js";import"./chunk-F27PBJKO-COyHe_9h.js";import"./chunk-L3NEJ4N5-olXwvySD.js";import"./chunk-OSK3NFVY-D6lxud4-.js";import"./chunk-GVQU2GXP-DmDgjsxg.js";import"./chunk-4HAMMTFA-BeJONYO3.js";import"./chunk-P2QGCYS3-9H2gVsa7.js";import"./chunk-GMAD6QVW-J6myKp9v.js";import"./chunk-PWAF6VOD-C0eYV5qm.js";import"./chunk-75Z2AOVW-MbUMu3dI.js";import"./chunk-DU6HZSFF-DI-Pjn1A.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};