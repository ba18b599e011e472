import{r as e,t}from"./chunk-SHT3W25Y-CpRSH2B1.js";import"./chunk-POPQ4Y6H-ERvZaqJF.js";import"./mermaid.core-VoPdNBS3.js";import"./chunk-F27PBJKO-MwSyNiWE.js";import"./chunk-L3NEJ4N5-BERUZbGY.js";import"./chunk-OSK3NFVY-C6zzvVBp.js";import"./chunk-GVQU2GXP-lecv9cs4.js";import"./chunk-4HAMMTFA-uLpZCsT_.js";import"./chunk-P2QGCYS3-BHp3wDGT.js";import"./chunk-GMAD6QVW-DfF9ukpH.js";import"./chunk-PWAF6VOD-_A4tO3Tg.js";import"./chunk-75Z2AOVW-hTW1YE7c.js";import"./chunk-DU6HZSFF-BXvy07fP.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};