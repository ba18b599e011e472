import{r as e,t}from"./chunk-SHT3W25Y-QOLjPkR3.js";import"./chunk-POPQ4Y6H-BYchByvA.js";import"./mermaid.core-DaGAHekn.js";import"./chunk-F27PBJKO-CcPvCsf-.js";import"./chunk-L3NEJ4N5-8z5Jukzs.js";import"./chunk-OSK3NFVY-5UPIe7ze.js";import"./chunk-GVQU2GXP-DHUFq-aK.js";import"./chunk-4HAMMTFA-Bw7et2xp.js";import"./chunk-P2QGCYS3-C98RS9IT.js";import"./chunk-GMAD6QVW-DVnJgGrR.js";import"./chunk-PWAF6VOD-Ccing21i.js";import"./chunk-75Z2AOVW-BGAnoJvg.js";import"./chunk-DU6HZSFF-Bp01KGWl.js";import"./d3-selection-0IvC3OnK.js";import{n}from"./chunk-Y2CYZVJY-DsF7k-Jl.js";var r=t({defaultLayout:`swimlane`,styles:n(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,`getStyles`)});export{r as diagram};