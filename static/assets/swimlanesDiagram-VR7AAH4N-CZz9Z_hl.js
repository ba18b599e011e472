import{r as e,t}from"./chunk-SHT3W25Y-31v-NgSL.js";import"./chunk-POPQ4Y6H-Bldc5Mfm.js";import"./mermaid.core-2DnL4-4r.js";import"./chunk-F27PBJKO-BiwVyjWQ.js";import"./chunk-L3NEJ4N5-oBOLbbIt.js";import"./chunk-OSK3NFVY-BGndsEsn.js";import"./chunk-GVQU2GXP-B7HvKBc9.js";import"./chunk-4HAMMTFA-DwGTWhPh.js";import"./chunk-P2QGCYS3-eq4IqYbo.js";import"./chunk-GMAD6QVW-uIW2Umbj.js";import"./chunk-PWAF6VOD-BtX-9pb4.js";import"./chunk-75Z2AOVW-CzHo6qC7.js";import"./chunk-DU6HZSFF-O7svp6Kb.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};